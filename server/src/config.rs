//! Configuration, read once at start from `BOXOFFICE_*` environment variables (or flags).

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use clap::Parser;
use secrecy::SecretString;

/// Every setting of the server. `server --help` lists them with their variables and defaults.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "server",
    version,
    about = "Boxoffice: partner ticketing commerce service"
)]
pub struct Config {
    /// Address the HTTP server listens on.
    #[arg(long, env = "BOXOFFICE_LISTEN", default_value = "127.0.0.1:3000")]
    pub listen: SocketAddr,

    /// Public origin of this service: base of frame_url, magic links and payment URLs.
    #[arg(
        long,
        env = "BOXOFFICE_PUBLIC_URL",
        default_value = "http://127.0.0.1:3000"
    )]
    pub public_url: url::Url,

    /// Database: unset for embedded SQLite under --data-dir, or a postgres:// URL.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<SecretString>,

    /// Directory of the embedded SQLite database (which also keeps the generated keys).
    #[arg(long, env = "BOXOFFICE_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,

    /// Connections in the database pool (on SQLite: read-only connections, beside the one that
    /// writes). Unset: 16 on SQLite; on Postgres twice this machine's cores, at least 4
    /// (`store::connect`).
    #[arg(long, env = "BOXOFFICE_DB_MAX_CONNECTIONS")]
    pub db_max_connections: Option<u32>,

    /// Stage segment of the merchant-account paths (`/{stage}/merchant-accounts/...`).
    #[arg(long, env = "BOXOFFICE_STAGE", default_value = "prod")]
    pub stage: String,

    /// Bearer token of the operator API under /admin/v1; the API is off when unset.
    #[arg(long, env = "BOXOFFICE_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<SecretString>,

    /// Demo mode (`1`; off by default): seed demo data into an empty database, with a partner
    /// client whose secret is public, print its credentials at start and serve `/demo/shop`.
    /// Refused unless the public URL is a loopback address (see --demo-allow-public).
    #[arg(long, env = "BOXOFFICE_DEMO", default_value = "0", value_parser = clap::builder::BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub demo: bool,

    /// UNSAFE: allow demo mode on a public URL that is not a loopback address. Anyone who can
    /// reach the server then holds the demo partner's published secret.
    #[arg(long, env = "BOXOFFICE_DEMO_ALLOW_PUBLIC", default_value = "0", value_parser = clap::builder::BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub demo_allow_public: bool,

    /// The payment provider: `sandbox` (built in, pretend money: the demo and tests) or
    /// `stripe` (real money; the BOXOFFICE_STRIPE_* settings below, docs/payments.md).
    #[arg(
        long,
        env = "BOXOFFICE_PAYMENT_PROVIDER",
        value_enum,
        default_value = "sandbox"
    )]
    pub payment_provider: PaymentProviderKind,

    #[command(flatten)]
    pub stripe: crate::providers::stripe::settings::StripeSettings,

    /// The built-in sandbox payment provider (`0` switches it off: its page `/pay` answers 404
    /// and checkouts fail with `checkout-order-failed`, as with any provider that fails).
    #[arg(long, env = "BOXOFFICE_SANDBOX_PAYMENTS", default_value = "1", value_parser = clap::builder::BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub sandbox_payments: bool,

    /// Client secret of the demo partner client `demo-partner`.
    #[arg(
        long,
        env = "BOXOFFICE_DEMO_CLIENT_SECRET",
        default_value = "demo-secret",
        hide_env_values = true
    )]
    pub demo_client_secret: SecretString,

    /// PKCS#8 PEM file with the Ed25519 key that signs bearers; unset: a key is generated on
    /// first start and kept in the database, so every node shares it.
    #[arg(long, env = "BOXOFFICE_JWT_KEY_FILE")]
    pub jwt_key_file: Option<PathBuf>,

    /// Lifetime of a backend bearer, in seconds.
    #[arg(long, env = "BOXOFFICE_BACKEND_TOKEN_TTL", default_value_t = 900)]
    pub backend_token_ttl_secs: u64,

    /// Lifetime of a public bearer, in seconds.
    #[arg(long, env = "BOXOFFICE_PUBLIC_TOKEN_TTL", default_value_t = 1800)]
    pub public_token_ttl_secs: u64,

    /// Lifetime of a session code, in seconds.
    #[arg(long, env = "BOXOFFICE_SESSION_CODE_TTL", default_value_t = 300)]
    pub session_code_ttl_secs: u64,

    /// SMTP server for outgoing mail (smtp://, smtps://); unset writes mail to the outbox table.
    #[arg(long, env = "BOXOFFICE_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<SecretString>,

    /// Sender address of outgoing mail.
    #[arg(
        long,
        env = "BOXOFFICE_MAIL_FROM",
        default_value = "Boxoffice <no-reply@boxoffice.invalid>"
    )]
    pub mail_from: String,

    /// Google Wallet issuer id: with `BOXOFFICE_GOOGLE_WALLET_KEY_FILE`, customers get a "save to
    /// Google Wallet" link for their tickets; without both, none is offered.
    #[arg(long, env = "BOXOFFICE_GOOGLE_WALLET_ISSUER_ID")]
    pub google_wallet_issuer_id: Option<String>,

    /// The Google Wallet service account's JSON key file (its RSA key signs the save links).
    #[arg(long, env = "BOXOFFICE_GOOGLE_WALLET_KEY_FILE")]
    pub google_wallet_key_file: Option<PathBuf>,

    /// Apple Wallet Pass Type ID (`pass.com.example.tickets`): with the team id, certificate,
    /// key and WWDR intermediate below, customers can add their tickets to Apple Wallet.
    #[arg(long, env = "BOXOFFICE_APPLE_PASS_TYPE_ID")]
    pub apple_pass_type_id: Option<String>,

    /// The Apple developer team id of the Pass Type ID.
    #[arg(long, env = "BOXOFFICE_APPLE_TEAM_ID")]
    pub apple_team_id: Option<String>,

    /// PEM file with the Pass Type ID certificate.
    #[arg(long, env = "BOXOFFICE_APPLE_PASS_CERT")]
    pub apple_pass_cert: Option<PathBuf>,

    /// PEM file with the Pass Type ID certificate's private key.
    #[arg(long, env = "BOXOFFICE_APPLE_PASS_KEY")]
    pub apple_pass_key: Option<PathBuf>,

    /// PEM file with Apple's WWDR intermediate certificate (included in each signature).
    #[arg(long, env = "BOXOFFICE_APPLE_WWDR_CERT")]
    pub apple_wwdr_cert: Option<PathBuf>,

    /// Requests per minute one client address may make to each token and exchange endpoint
    /// (the token endpoints count per client address and client id).
    #[arg(long, env = "BOXOFFICE_AUTH_RATE_PER_MINUTE", default_value_t = 120)]
    pub auth_rate_per_minute: u32,

    /// Open checkouts (reserved, or confirmed and awaiting payment) one customer or one
    /// session may hold at once; 0: no bound. A partner client may set its own
    /// (`hold_limits`, operator API). docs/security.md, "Holds".
    #[arg(long, env = "BOXOFFICE_HOLD_RESERVATIONS", default_value_t = 8)]
    pub hold_reservations: u32,

    /// Open checkouts one customer or session may hold for one visit day; 0: no bound.
    #[arg(long, env = "BOXOFFICE_HOLD_RESERVATIONS_PER_DAY", default_value_t = 4)]
    pub hold_reservations_per_day: u32,

    /// Places one customer or session may hold at once, over all its open checkouts; 0: no
    /// bound.
    #[arg(long, env = "BOXOFFICE_HOLD_PLACES", default_value_t = 100)]
    pub hold_places: u32,

    /// Places one customer or session may hold for one visit day; 0: no bound.
    #[arg(long, env = "BOXOFFICE_HOLD_PLACES_PER_DAY", default_value_t = 40)]
    pub hold_places_per_day: u32,

    /// One client address (bearer or not) may hold this many times a customer's bounds: a
    /// household, an office or a school shares one address.
    #[arg(long, env = "BOXOFFICE_HOLD_ADDRESS_FACTOR", default_value_t = 4)]
    pub hold_address_factor: u32,

    /// Leading bits of an IPv6 client address that every per-address limit counts it by (a
    /// subscriber is usually handed a whole /64); IPv4 clients are counted by their address.
    #[arg(long, env = "BOXOFFICE_RATE_LIMIT_IPV6_PREFIX", default_value_t = 64, value_parser = clap::value_parser!(u8).range(0..=128))]
    pub rate_limit_ipv6_prefix: u8,

    /// Load balancers and proxies whose `X-Forwarded-For` / `Forwarded` headers are believed,
    /// as comma-separated CIDRs or addresses (`10.0.0.0/8,192.0.2.7`). Only when the peer is
    /// one of them is the client address taken from those headers: the right-most address
    /// that is not itself a trusted proxy. Empty: the TCP peer is the client.
    #[arg(long, env = "BOXOFFICE_TRUSTED_PROXIES", value_delimiter = ',', value_parser = parse_net)]
    pub trusted_proxies: Vec<ipnet::IpNet>,

    /// The header trusted proxies write the client address into: `x-forwarded-for` or
    /// `forwarded` (RFC 7239). Only this one is read: a client can send the other unchecked.
    #[arg(
        long,
        env = "BOXOFFICE_FORWARDED_HEADER",
        value_enum,
        default_value = "x-forwarded-for"
    )]
    pub forwarded_header: ForwardedHeader,

    /// Allow webhook and JWKS URLs that point to loopback, private, link-local or other
    /// non-public addresses (`1` for local development and tests; off in production).
    #[arg(long, env = "BOXOFFICE_ALLOW_PRIVATE_OUTBOUND", default_value = "0", value_parser = clap::builder::BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub allow_private_outbound: bool,

    /// The IANA zone settlement statements count their months in (docs/settlement.md).
    #[arg(long, env = "BOXOFFICE_SETTLEMENT_TIMEZONE", default_value = "UTC", value_parser = parse_zone)]
    pub settlement_timezone: chrono_tz::Tz,

    /// How often the background workers (webhook and mail delivery, expiry sweeper) look for work, in ms.
    #[arg(long, env = "BOXOFFICE_WORKER_INTERVAL_MS", default_value_t = 1000)]
    pub worker_interval_ms: u64,

    /// Time a request may take before it is answered with 503.
    #[arg(long, env = "BOXOFFICE_REQUEST_TIMEOUT", default_value_t = 30)]
    pub request_timeout_secs: u64,

    /// Largest accepted request body, in bytes.
    #[arg(long, env = "BOXOFFICE_BODY_LIMIT", default_value_t = 256 * 1024)]
    pub body_limit_bytes: usize,

    /// Milliseconds within which a bearer's revocation made through another node (a replayed
    /// session code, a partner client changed or removed) is honoured here: each node caches
    /// what public bearers may do and re-reads the revocation counter this often. 0 turns the
    /// cache off (every request checks the database).
    #[arg(
        long,
        env = "BOXOFFICE_AUTH_REVISION_INTERVAL_MS",
        default_value_t = 1000
    )]
    pub auth_revision_interval_ms: u64,

    /// Seconds a cached product list is served on this node; the cache is also dropped at every
    /// catalog change made through this node, so the lifetime only bounds how long a change
    /// made through another node can go unseen here. 0 turns the cache off.
    #[arg(long, env = "BOXOFFICE_CATALOG_CACHE_TTL", default_value_t = 5)]
    pub catalog_cache_ttl_secs: u64,

    /// Seconds after which this node's merchant search index is rebuilt in the background (it
    /// is rebuilt at once after a catalog change made through this node).
    #[arg(long, env = "BOXOFFICE_SEARCH_INDEX_TTL", default_value_t = 30)]
    pub search_index_ttl_secs: u64,

    /// Benchmarks only: mount `/bench/baseline`, which answers with bytes held in memory, as
    /// the upper limit the benchmark compares the real endpoints with (docs/benchmarks.md).
    #[arg(long, env = "BOXOFFICE_BENCH_BASELINE", default_value = "0", value_parser = clap::builder::BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub bench_baseline: bool,

    /// Log filter in `tracing` syntax, e.g. `info,server=debug`.
    #[arg(long, env = "BOXOFFICE_LOG", default_value = "info")]
    pub log: String,

    /// Log as JSON lines instead of text.
    #[arg(long, env = "BOXOFFICE_LOG_JSON", default_value = "0", value_parser = clap::builder::BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub log_json: bool,
}

/// An IANA zone name, as chrono-tz knows them.
fn parse_zone(value: &str) -> Result<chrono_tz::Tz, String> {
    value
        .parse()
        .map_err(|_| format!("{value:?} is not an IANA time zone name"))
}

impl Config {
    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs(self.request_timeout_secs)
    }

    /// The public origin without a trailing slash, for building absolute URLs.
    pub fn base_url(&self) -> String {
        self.public_url.as_str().trim_end_matches('/').to_owned()
    }

    /// Where outbound requests to configured URLs may go (`crate::outbound`).
    pub fn outbound(&self) -> crate::outbound::OutboundPolicy {
        crate::outbound::OutboundPolicy {
            allow_private: self.allow_private_outbound,
        }
    }

    /// The bounds on what one customer or session holds at once, as set; a partner client's
    /// own replace them for its buyers (`checkout::holds`).
    pub fn hold_limits(&self) -> crate::store::HoldLimits {
        crate::store::HoldLimits {
            reservations: self.hold_reservations,
            reservations_per_day: self.hold_reservations_per_day,
            places: self.hold_places,
            places_per_day: self.hold_places_per_day,
        }
    }

    /// Refuses settings that must not run together: demo mode (whose partner secret is
    /// published) on a public URL other than a loopback address, unless explicitly allowed.
    pub fn check(&self) -> Result<(), String> {
        if self.demo && !self.demo_allow_public && !is_loopback(&self.public_url) {
            return Err(format!(
                "demo mode (BOXOFFICE_DEMO=1) publishes a partner secret, so it runs only on a \
                 loopback public URL, not {}; set BOXOFFICE_DEMO_ALLOW_PUBLIC=1 to run it there \
                 anyway (unsafe)",
                self.base_url()
            ));
        }
        if self.payment_provider == PaymentProviderKind::Stripe {
            if let Some(missing) = self.stripe.missing() {
                return Err(missing);
            }
        }
        Ok(())
    }

    /// A configuration with every default, as the tests and tools start from.
    pub fn defaults() -> Self {
        Self::parse_from(["server"])
    }
}

/// Which payment provider takes the payments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PaymentProviderKind {
    /// The built-in sandbox: its own payment page, pretend money.
    Sandbox,
    /// Stripe Connect: merchants as connected accounts, real money.
    Stripe,
}

/// The header trusted proxies write the client address into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ForwardedHeader {
    /// `X-Forwarded-For: client, proxy1, proxy2`.
    XForwardedFor,
    /// `Forwarded: for=client, for=proxy1` (RFC 7239).
    Forwarded,
}

/// Whether `url` names this machine: a loopback address or `localhost` (RFC 6761).
fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(v4)) => v4.is_loopback(),
        Some(url::Host::Ipv6(v6)) => v6.is_loopback(),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => false,
    }
}

/// A CIDR (`10.0.0.0/8`) or a single address (`192.0.2.7`, taken as `/32` or `/128`).
fn parse_net(value: &str) -> Result<ipnet::IpNet, String> {
    let value = value.trim();
    value
        .parse::<ipnet::IpNet>()
        .or_else(|_| value.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("`{value}` is not a CIDR or an IP address"))
}

/// The settings reference as `server --help` prints it where no setting's variable is set:
/// the long help with every `[env: NAME=value]` written `[env: NAME=]`, so the environment the
/// help is rendered in does not change it. docs/operating.md holds it (a test compares them).
pub fn settings_reference() -> String {
    use clap::CommandFactory;
    let help = Config::command().render_long_help().to_string();
    let mut out = String::with_capacity(help.len());
    let mut rest = help.as_str();
    while let Some(start) = rest.find("[env: ") {
        let (before, from) = rest.split_at(start);
        out.push_str(before);
        let end = from.find(']').map_or(from.len(), |i| i + 1);
        let (env, after) = from.split_at(end);
        match env.split_once('=') {
            Some((name, _)) => {
                out.push_str(name);
                out.push_str("=]");
            }
            None => out.push_str(env),
        }
        rest = after;
    }
    out.push_str(rest);
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    const REFERENCE_START: &str = "<!-- settings reference: generated from `server --help` -->\n";
    const REFERENCE_END: &str = "<!-- end of the settings reference -->";

    /// docs/operating.md's settings reference is `server --help`. To regenerate it:
    /// `BOXOFFICE_UPDATE_DOCS=1 cargo test -p app -p server --lib config::tests::docs_operating`.
    #[test]
    fn docs_operating_md_holds_the_settings_reference_of_server_help() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/operating.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let (before, rest) = doc
            .split_once(REFERENCE_START)
            .expect("docs/operating.md marks the start of the settings reference");
        let (current, after) = rest
            .split_once(REFERENCE_END)
            .expect("docs/operating.md marks the end of the settings reference");
        let wanted = format!("\n```text\n{}```\n\n", settings_reference());
        if current == wanted {
            return;
        }
        if std::env::var_os("BOXOFFICE_UPDATE_DOCS").is_some() {
            std::fs::write(
                path,
                format!("{before}{REFERENCE_START}{wanted}{REFERENCE_END}{after}"),
            )
            .unwrap();
            return;
        }
        panic!(
            "docs/operating.md's settings reference is not `server --help`; regenerate it with \
             BOXOFFICE_UPDATE_DOCS=1 cargo test -p app -p server --lib config::tests::docs_operating"
        );
    }

    #[test]
    fn debug_output_hides_secrets() {
        let config = Config::parse_from([
            "server",
            "--admin-token",
            "admin-secret-value",
            "--database-url",
            "postgres://user:db-password@host/db",
            "--demo-client-secret",
            "demo-secret-value",
        ]);
        let debug = format!("{config:?}");
        for secret in ["admin-secret-value", "db-password", "demo-secret-value"] {
            assert!(!debug.contains(secret), "{secret} leaked: {debug}");
        }
    }

    #[test]
    fn trusted_proxies_take_cidrs_and_addresses_and_private_outbound_is_off_by_default() {
        let config = Config::parse_from([
            "server",
            "--trusted-proxies",
            "10.0.0.0/8, 192.0.2.7,2001:db8::/32",
        ]);
        let nets: Vec<String> = config
            .trusted_proxies
            .iter()
            .map(|n| n.to_string())
            .collect();
        assert_eq!(nets, ["10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32"]);
        assert!(Config::try_parse_from(["server", "--trusted-proxies", "nonsense"]).is_err());
        assert!(!Config::parse_from(["server"]).allow_private_outbound);
        assert!(Config::parse_from(["server"]).trusted_proxies.is_empty());
        assert!(
            Config::parse_from(["server", "--allow-private-outbound", "1"]).allow_private_outbound
        );
    }

    #[test]
    fn the_demo_switch_takes_0_and_1() {
        assert!(!Config::defaults().demo, "off unless asked for");
        assert!(!Config::parse_from(["server", "--demo", "0"]).demo);
        assert!(Config::parse_from(["server", "--demo", "1"]).demo);
        assert!(!Config::parse_from(["server", "--demo", "false"]).demo);
    }

    #[test]
    fn demo_mode_runs_only_on_a_loopback_public_url_unless_allowed() {
        let demo = |url: &str, allow: &str| {
            Config::parse_from([
                "server",
                "--demo",
                "1",
                "--public-url",
                url,
                "--demo-allow-public",
                allow,
            ])
            .check()
        };
        for url in [
            "http://127.0.0.1:3000",
            "http://127.9.9.9",
            "http://[::1]:3000",
            "http://localhost:3000",
            "http://shop.localhost",
        ] {
            assert_eq!(demo(url, "0"), Ok(()), "{url}");
        }
        for url in [
            "https://tickets.example.com",
            "http://10.0.0.5:3000",
            "http://192.0.2.1",
            "http://[2001:db8::1]",
            "http://localhost.example.com",
        ] {
            let refused = demo(url, "0").expect_err(url);
            assert!(refused.contains("BOXOFFICE_DEMO_ALLOW_PUBLIC"), "{refused}");
            assert_eq!(demo(url, "1"), Ok(()), "{url} with the override");
        }
        let production = Config::parse_from(["server", "--public-url", "https://t.example"]);
        assert_eq!(production.check(), Ok(()), "no demo, nothing to refuse");
    }
}
