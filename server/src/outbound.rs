//! The policy for requests this server sends to addresses an operator or partner configured
//! (webhook URLs, identity providers' JWKS URLs): such a URL must not reach this machine or the
//! network behind it (loopback, private, link-local, unspecified, multicast and the like)
//! unless `BOXOFFICE_ALLOW_PRIVATE_OUTBOUND` allows it. A URL is checked when it is saved
//! ([`check_url`]: names like `localhost` and literal addresses) and again whenever it is
//! resolved for a request ([`client`]'s resolver: DNS may point elsewhere later). Bodies read
//! from such a server are capped ([`read_capped`]).

use std::{
    error::Error as StdError,
    net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr},
    time::Duration,
};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Whether outbound requests may go to private and local addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutboundPolicy {
    pub allow_private: bool,
}

impl OutboundPolicy {
    /// Public addresses only: the production default.
    pub const PUBLIC_ONLY: Self = Self {
        allow_private: false,
    };
}

/// Why an outbound URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutboundRefusal {
    #[error("must be an absolute http(s) URL")]
    NotHttp,
    #[error("must not point to a loopback, private, link-local or otherwise non-public address")]
    NonPublic,
}

/// An address a request may go to under the public-only policy: none of loopback, private
/// (RFC 1918, IPv6 unique local and the old site-local `fec0::/10`), link-local, shared
/// (RFC 6598), unspecified, multicast, broadcast, `0.0.0.0/8`, the IETF protocol block
/// `192.0.0.0/24`, the benchmarking block `198.18.0.0/15` and the reserved `240.0.0.0/4`.
///
/// IPv6 forms that carry an IPv4 address are judged as follows (docs/security.md, "Outbound
/// requests"): IPv4-mapped (`::ffff:a.b.c.d`) and the well-known NAT64 prefix
/// (`64:ff9b::/96`, where a DNS64 resolver puts every IPv4-only host on an IPv6-only network)
/// by the IPv4 address they carry; the local-use NAT64 prefix `64:ff9b:1::/48` (its mapping
/// is the site's own), 6to4 (`2002::/16`), Teredo (`2001::/32`) and IPv4-compatible
/// (`::a.b.c.d`, deprecated) are refused whole: no public service is reached only through
/// them, and what they lead to depends on relays outside the address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

/// The IPv4 address an IPv4-mapped or well-known-prefix NAT64 address stands for.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = ip.segments();
    let nat64 = s[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    nat64.then(|| Ipv4Addr::from((u32::from(s[6]) << 16) | u32::from(s[7])))
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_multicast()
        || ip.is_broadcast()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (b & 0xfe) == 18)
        || a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let first = s[0];
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || (first & 0xffc0) == 0xfec0
        // IPv4-compatible `::a.b.c.d` (and anything else under `::/96`).
        || s[..6] == [0; 6]
        // NAT64 local use (`64:ff9b:1::/48`), or any other address under `64:ff9b::/32`
        // that is not the well-known prefix judged by its IPv4 address.
        || (first == 0x64 && s[1] == 0xff9b)
        || first == 0x2002
        || (first == 0x2001 && s[1] == 0))
}

/// Checks a URL as it is saved: http(s), and under the public-only policy no literal
/// non-public address and no `localhost` name. Other names are checked when resolved.
pub fn check_url(url: &str, policy: OutboundPolicy) -> Result<(), OutboundRefusal> {
    let url = url::Url::parse(url).map_err(|_| OutboundRefusal::NotHttp)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(OutboundRefusal::NotHttp);
    }
    let host = url.host().ok_or(OutboundRefusal::NotHttp)?;
    if policy.allow_private {
        return Ok(());
    }
    let public = match host {
        url::Host::Ipv4(v4) => is_public(IpAddr::V4(v4)),
        url::Host::Ipv6(v6) => is_public(IpAddr::V6(v6)),
        url::Host::Domain(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name != "localhost" && !name.ends_with(".localhost")
        }
    };
    if public {
        Ok(())
    } else {
        Err(OutboundRefusal::NonPublic)
    }
}

/// A resolver that drops non-public addresses and fails when none is left, so a name that
/// resolves (or later re-resolves) to this machine or a private network is never connected to.
struct PublicOnlyResolver;

impl Resolve for PublicOnlyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let resolved: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|address| is_public(address.ip()))
                .collect();
            if resolved.is_empty() {
                let refused: Box<dyn StdError + Send + Sync> = Box::new(OutboundRefusal::NonPublic);
                return Err(refused);
            }
            let addrs: Addrs = Box::new(resolved.into_iter());
            Ok(addrs)
        })
    }
}

/// An HTTP client for configured URLs: no redirects (a redirect could lead anywhere), the
/// given timeout, and under the public-only policy a resolver that refuses non-public
/// addresses. Literal addresses are not resolved: call [`check_url`] before each request too.
pub fn client(policy: OutboundPolicy, timeout: Duration) -> reqwest::Client {
    // `no_proxy`: a proxy named in the environment (`HTTPS_PROXY`, …) would make the
    // connection, so the address checks here would judge the proxy, not the target.
    let mut builder = reqwest::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none());
    if !policy.allow_private {
        builder = builder.dns_resolver(std::sync::Arc::new(PublicOnlyResolver));
    }
    builder.build().expect("HTTP client builds")
}

/// Why a capped body could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("the body is larger than {0} bytes")]
    TooLarge(usize),
    /// The transfer failed; the error carries no URL (URLs may hold keys).
    #[error("reading the body failed: {0}")]
    Transfer(reqwest::Error),
}

/// Reads at most `cap` bytes of `response`'s body; a longer body is an error, found out from
/// `Content-Length` before reading or while reading a body sent without it.
pub async fn read_capped(
    mut response: reqwest::Response,
    cap: usize,
) -> Result<Vec<u8>, ReadError> {
    if response
        .content_length()
        .is_some_and(|length| length > cap as u64)
    {
        return Err(ReadError::TooLarge(cap));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|err| ReadError::Transfer(err.without_url()))?
    {
        if body.len() + chunk.len() > cap {
            return Err(ReadError::TooLarge(cap));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_and_private_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "0.1.2.3",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "100.128.0.1"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn reserved_ipv4_blocks_and_ipv6_transition_forms_are_not_public() {
        for ip in [
            // IETF protocol assignments, benchmarking, reserved (with its edges).
            "192.0.0.1",
            "192.0.0.255",
            "198.18.0.1",
            "198.19.255.255",
            "240.0.0.1",
            "254.1.2.3",
            // Site-local (deprecated, still routed inside some sites).
            "fec0::1",
            "feff:ffff::1",
            // Well-known NAT64 prefix: judged by the IPv4 address it carries.
            "64:ff9b::7f00:1",
            "64:ff9b::a00:1",
            "64:ff9b::a9fe:a9fe",
            // NAT64 local use, 6to4, Teredo, IPv4-compatible: refused whole, even when the
            // IPv4 address inside is public.
            "64:ff9b:1::808:808",
            "2002:808:808::1",
            "2002:7f00:1::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "::8.8.8.8",
            "::127.0.0.1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
            // Refused as a saved URL too, as the resolver refuses it at every request.
            let url = match ip.parse::<IpAddr>().unwrap() {
                IpAddr::V4(v4) => format!("http://{v4}/hook"),
                IpAddr::V6(v6) => format!("http://[{v6}]/hook"),
            };
            assert_eq!(
                check_url(&url, OutboundPolicy::PUBLIC_ONLY),
                Err(OutboundRefusal::NonPublic),
                "{url}"
            );
        }
        for ip in [
            "192.0.1.1",
            "198.17.255.255",
            "198.20.0.1",
            "223.255.255.254",
            "64:ff9b::808:808",
            "2001:db9::1",
            "2003::1",
        ] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn saved_urls_are_checked_for_scheme_and_local_targets() {
        let strict = OutboundPolicy::PUBLIC_ONLY;
        assert_eq!(check_url("https://shop.example/hooks", strict), Ok(()));
        for url in [
            "http://127.0.0.1:8080/x",
            "http://localhost/x",
            "http://LOCALHOST./x",
            "http://api.localhost/x",
            "http://[::1]/x",
            "http://169.254.169.254/latest/meta-data",
            "http://10.0.0.5/x",
        ] {
            assert_eq!(
                check_url(url, strict),
                Err(OutboundRefusal::NonPublic),
                "{url}"
            );
        }
        assert_eq!(
            check_url("ftp://shop.example/", strict),
            Err(OutboundRefusal::NotHttp)
        );
        let open = OutboundPolicy {
            allow_private: true,
        };
        assert_eq!(check_url("http://127.0.0.1:8080/x", open), Ok(()));
    }

    #[tokio::test]
    async fn the_resolver_refuses_names_of_local_addresses() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let app = axum::Router::new().route("/", axum::routing::get(|| async { "local" }));
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let url = format!("http://localhost:{port}/");
        let open = client(
            OutboundPolicy {
                allow_private: true,
            },
            Duration::from_secs(2),
        );
        let answered = open
            .get(&url)
            .send()
            .await
            .expect("allowed when private is allowed");
        assert!(answered.status().is_success());
        let strict = client(OutboundPolicy::PUBLIC_ONLY, Duration::from_secs(2));
        strict
            .get(&url)
            .send()
            .await
            .expect_err("localhost must not be connected to");
    }
}
