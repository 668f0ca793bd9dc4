//! The server binary stopped cleanly (SIGTERM), its stderr a file: the database file alone
//! holds what it wrote (SQLite's WAL checkpointed into it and emptied), and the log is plain
//! text with one access line per request that names no query string and no bearer
//! (docs/operating.md, "Backups" and "Logs").

use std::{
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use crate::helpers::{spawn_app, ADMIN_TOKEN};

#[tokio::test]
async fn a_clean_stop_leaves_the_database_file_complete_and_a_plain_access_log() {
    // On Postgres the binary uses the test's database; on SQLite a data directory of its own.
    let app = spawn_app().await;
    let data_dir = tempfile::tempdir().unwrap();
    let log_path = data_dir.path().join("server.log");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let mut command = Command::new(env!("CARGO_BIN_EXE_server"));
    command
        .env_remove("DATABASE_URL")
        .env_remove("NO_COLOR")
        .env("BOXOFFICE_DATA_DIR", data_dir.path())
        .env("BOXOFFICE_LISTEN", format!("127.0.0.1:{port}"))
        .env("BOXOFFICE_PUBLIC_URL", &base)
        .env("BOXOFFICE_DEMO", "0")
        .env("BOXOFFICE_LOG", "info")
        .env("BOXOFFICE_ADMIN_TOKEN", ADMIN_TOKEN)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path).unwrap());
    if let Some(url) = app.postgres_url() {
        command.env("DATABASE_URL", url);
    }
    let mut child = command.spawn().expect("the server binary starts");

    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !http
        .get(format!("{base}/readyz"))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
    {
        assert!(Instant::now() < deadline, "the server did not become ready");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let created = http
        .post(format!("{base}/admin/v1/campaigns"))
        .bearer_auth(ADMIN_TOKEN)
        .json(
            &serde_json::json!({ "name": "Kept at a clean stop", "loyalty_points_per_unit": "1" }),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let refused = http
        .get(format!("{base}/v2/me?session_code=query-secret-1234"))
        .bearer_auth("bearer-secret-5678")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let correlation_id = refused.headers()["x-correlation-id"]
        .to_str()
        .unwrap()
        .to_owned();

    let stopped = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the server did not stop");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "a clean stop exits 0: {status}");

    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(
        !log.contains('\u{1b}'),
        "no ANSI escape codes in a file: {log}"
    );
    let access = log
        .lines()
        .find(|line| line.contains(&correlation_id) && line.contains("answered"))
        .unwrap_or_else(|| panic!("an access line for the request: {log}"));
    for part in [
        "INFO",
        "method=GET",
        "path=/v2/me",
        "status=401",
        "duration_ms=",
    ] {
        assert!(access.contains(part), "{part} in {access}");
    }
    for secret in ["query-secret-1234", "bearer-secret-5678", "session_code"] {
        assert!(!log.contains(secret), "{secret} logged: {log}");
    }

    if app.postgres_url().is_none() {
        let db = data_dir.path().join("boxoffice.db");
        let wal = data_dir.path().join("boxoffice.db-wal");
        assert!(
            std::fs::metadata(&wal).map_or(true, |m| m.len() == 0),
            "the WAL is empty after a clean stop"
        );
        // The database file alone, without its WAL or shared memory: a cold copy.
        let copy_dir = tempfile::tempdir().unwrap();
        let copy = copy_dir.path().join("copy.db");
        std::fs::copy(&db, &copy).unwrap();
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&copy);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        let kept: i64 =
            sqlx::query_scalar("SELECT count(*) FROM campaign WHERE name = 'Kept at a clean stop'")
                .fetch_one(&pool)
                .await
                .unwrap();
        assert_eq!(kept, 1, "the copied file holds the write");
    }
}
