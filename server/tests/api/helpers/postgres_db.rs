//! A throwaway Postgres database per test, copied from a migrated template.

/// A throwaway Postgres database for one test.
pub(super) struct PostgresDb {
    admin_url: String,
    name: String,
    pub(super) url: String,
}

impl PostgresDb {
    pub(super) async fn create(admin_url: &str) -> Self {
        use sqlx::Connection;
        let template = migrated_template(admin_url).await;
        // The creation time in the name lets a later run sweep databases a crash left behind.
        let name = format!(
            "boxoffice_test_{}_{}",
            chrono::Utc::now().timestamp(),
            uuid::Uuid::new_v4().simple()
        );
        let mut conn = sqlx::PgConnection::connect(admin_url)
            .await
            .expect("connect to TEST_DATABASE_URL");
        sqlx::query(&format!("CREATE DATABASE {name} TEMPLATE {template}"))
            .execute(&mut conn)
            .await
            .expect("create test database");
        Self {
            admin_url: admin_url.to_owned(),
            url: database_url(admin_url, &name),
            name,
        }
    }
}

/// Drops test databases over an hour old: left by runs that were killed, never in use by a
/// run still going.
async fn sweep_stale_databases(conn: &mut sqlx::PgConnection) {
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname FROM pg_database WHERE datname LIKE 'boxoffice_test_%'")
            .fetch_all(&mut *conn)
            .await
            .unwrap_or_default();
    let hour_ago = chrono::Utc::now().timestamp() - 3600;
    for name in names {
        let created = name.split('_').nth(2).and_then(|t| t.parse::<i64>().ok());
        if created.is_none_or(|t| t < hour_ago) {
            let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .execute(&mut *conn)
                .await;
        }
    }
}

fn database_url(admin_url: &str, name: &str) -> String {
    let mut url = url::Url::parse(admin_url).expect("TEST_DATABASE_URL is a URL");
    url.set_path(name);
    url.to_string()
}

/// A database with every migration applied, made once per set of migrations: copying it is
/// much faster than migrating a fresh database for each test. Its name carries a hash of the
/// migrations, so a changed migration makes a new template.
async fn migrated_template(admin_url: &str) -> String {
    static TEMPLATE: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    TEMPLATE
        .get_or_init(|| async {
            use sha2::{Digest, Sha256};
            use sqlx::Connection;
            let mut hasher = Sha256::new();
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/postgres");
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            for file in files {
                hasher.update(std::fs::read(file).unwrap());
            }
            let digest = hasher.finalize();
            let name = format!(
                "boxoffice_tmpl_{}",
                digest
                    .iter()
                    .take(6)
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            );
            let mut conn = sqlx::PgConnection::connect(admin_url)
                .await
                .expect("connect to TEST_DATABASE_URL");
            sweep_stale_databases(&mut conn).await;
            let exists: Option<i32> =
                sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1")
                    .bind(&name)
                    .fetch_optional(&mut conn)
                    .await
                    .unwrap();
            if exists.is_none() {
                // Built under a temporary name and renamed, so a half-made template is never used.
                let building = format!("{name}_{}", uuid::Uuid::new_v4().simple());
                sqlx::query(&format!("CREATE DATABASE {building}"))
                    .execute(&mut conn)
                    .await
                    .unwrap();
                let pool = sqlx::PgPool::connect(&database_url(admin_url, &building))
                    .await
                    .unwrap();
                sqlx::migrate!("migrations/postgres")
                    .run(&pool)
                    .await
                    .expect("migrate the template");
                pool.close().await;
                let renamed = sqlx::query(&format!("ALTER DATABASE {building} RENAME TO {name}"))
                    .execute(&mut conn)
                    .await;
                if renamed.is_err() {
                    // Another run made it meanwhile.
                    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {building}"))
                        .execute(&mut conn)
                        .await;
                }
            }
            name
        })
        .await
        .clone()
}

impl Drop for PostgresDb {
    fn drop(&mut self) {
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        // Dropping takes most of a second; it runs on its own thread (with its own runtime,
        // as Drop cannot await) so the test does not wait. FORCE closes the server's pool.
        // Should the process end first, the next run sweeps the database.
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                use sqlx::Connection;
                if let Ok(mut conn) = sqlx::PgConnection::connect(&admin_url).await {
                    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                        .execute(&mut conn)
                        .await;
                }
            });
        });
    }
}
