//! Opaque, signed pagination cursors.
//!
//! A token is base64url of `[origin tag | scope tag | position]`. The origin tag (HMAC over the
//! endpoint and position) proves we made it for this endpoint: failing it means tampered or
//! foreign (`next-token-invalid`). The scope tag also covers the filters and the limit: failing
//! only that means a genuine token sent with a changed query (`next-token-mismatch`), which the
//! contract calls undefined and we reject.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use hmac::{Hmac, Mac};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sha2::Sha256;

use crate::{
    error::{Error, ProblemType, Result},
    http::envelope::Page,
};

const TAG_LEN: usize = 16;
/// Default and bounds of the `limit` parameter.
pub const DEFAULT_LIMIT: u32 = 20;
pub const MAX_LIMIT: u32 = 100;

/// The `limit` and `next_token` query parameters of a paged collection.
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// Cursor from the previous page's `meta.pagination.next_token`.
    pub next_token: Option<String>,
}

impl PageParams {
    /// The requested limit, checked against 1..=100.
    pub fn limit(&self) -> Result<u32> {
        match self.limit {
            None => Ok(DEFAULT_LIMIT),
            Some(l) if (1..=MAX_LIMIT).contains(&l) => Ok(l),
            Some(_) => Err(Error::invalid_field(
                "limit",
                "out_of_range",
                format!("limit must be between 1 and {MAX_LIMIT}"),
            )),
        }
    }
}

/// What a cursor is bound to: the endpoint, the query's filters in a canonical form, and the limit.
pub struct Scope<'a> {
    pub endpoint: &'a str,
    pub filters: &'a str,
    pub limit: u32,
}

/// Signs and verifies cursors with a secret shared by every server node.
#[derive(Clone)]
pub struct CursorSigner {
    key: Vec<u8>,
}

impl std::fmt::Debug for CursorSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorSigner(..)")
    }
}

impl CursorSigner {
    pub fn new(key: impl Into<Vec<u8>>) -> Self {
        Self { key: key.into() }
    }

    fn tag(&self, parts: &[&[u8]]) -> [u8; TAG_LEN] {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key length");
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        let mut out = [0u8; TAG_LEN];
        out.copy_from_slice(&mac.finalize().into_bytes()[..TAG_LEN]);
        out
    }

    fn origin_tag(&self, scope: &Scope<'_>, position: &[u8]) -> [u8; TAG_LEN] {
        self.tag(&[b"origin", scope.endpoint.as_bytes(), position])
    }

    fn scope_tag(&self, scope: &Scope<'_>, position: &[u8]) -> [u8; TAG_LEN] {
        let limit = scope.limit.to_be_bytes();
        self.tag(&[
            b"scope",
            scope.endpoint.as_bytes(),
            scope.filters.as_bytes(),
            &limit,
            position,
        ])
    }

    /// A token for the page after `position`.
    pub fn encode<P: Serialize>(&self, scope: &Scope<'_>, position: &P) -> String {
        let position = serde_json::to_vec(position).expect("cursor positions serialise");
        let mut bytes = Vec::with_capacity(2 * TAG_LEN + position.len());
        bytes.extend_from_slice(&self.origin_tag(scope, &position));
        bytes.extend_from_slice(&self.scope_tag(scope, &position));
        bytes.extend_from_slice(&position);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The position a token carries, if we made it for this endpoint and this exact query.
    pub fn decode<P: DeserializeOwned>(&self, scope: &Scope<'_>, token: &str) -> Result<P> {
        let invalid = || {
            Error::new(
                ProblemType::NextTokenInvalid,
                "next_token was not issued by this endpoint; start again without it",
            )
        };
        let bytes = URL_SAFE_NO_PAD.decode(token).map_err(|_| invalid())?;
        if bytes.len() <= 2 * TAG_LEN {
            return Err(invalid());
        }
        let (origin, rest) = bytes.split_at(TAG_LEN);
        let (scope_tag, position) = rest.split_at(TAG_LEN);
        use subtle::ConstantTimeEq;
        if !bool::from(self.origin_tag(scope, position).ct_eq(origin)) {
            return Err(invalid());
        }
        if !bool::from(self.scope_tag(scope, position).ct_eq(scope_tag)) {
            return Err(Error::new(
                ProblemType::NextTokenMismatch,
                "next_token belongs to a query with another limit or other filters; send the same ones on every page",
            ));
        }
        serde_json::from_slice(position).map_err(|_| invalid())
    }
}

/// One page's request read and checked: its limit and its scope, against which the cursor it
/// came with was decoded and the next one is signed.
pub struct PageCursor<'a> {
    signer: &'a CursorSigner,
    scope: Scope<'a>,
}

impl<'a> PageCursor<'a> {
    /// The page `params` ask for and the last key the previous page ended at, if any.
    pub fn open<K: DeserializeOwned>(
        signer: &'a CursorSigner,
        params: &PageParams,
        endpoint: &'a str,
        filters: &'a str,
    ) -> Result<(Self, Option<K>)> {
        let scope = Scope {
            endpoint,
            filters,
            limit: params.limit()?,
        };
        let after = params
            .next_token
            .as_deref()
            .map(|token| signer.decode(&scope, token))
            .transpose()?;
        Ok((Self { signer, scope }, after))
    }

    pub fn limit(&self) -> u32 {
        self.scope.limit
    }

    /// The cursor of the page after the one ending at `last`.
    pub fn next_token<K: Serialize>(&self, last: &K) -> String {
        self.signer.encode(&self.scope, last)
    }
}

/// Serves one page of a key-ordered collection: decodes the cursor into the last key seen,
/// fetches one row more than `limit` (so a further page is known without a count), and signs
/// the key of the page's last item as the next cursor.
pub async fn paginate<T, K, F, Fut, E>(
    signer: &CursorSigner,
    params: &PageParams,
    endpoint: &str,
    filters: &str,
    key: impl Fn(&T) -> K,
    fetch: F,
) -> Result<Page<T>>
where
    K: Serialize + DeserializeOwned,
    F: FnOnce(Option<K>, u32) -> Fut,
    Fut: std::future::Future<Output = std::result::Result<Vec<T>, E>>,
    Error: From<E>,
{
    let (cursor, after) = PageCursor::open(signer, params, endpoint, filters)?;
    let limit = cursor.limit();
    let mut items = fetch(after, limit + 1).await?;
    let next_token = if items.len() > limit as usize {
        items.truncate(limit as usize);
        items.last().map(|last| cursor.next_token(&key(last)))
    } else {
        None
    };
    Ok(Page {
        items,
        limit,
        next_token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(filters: &str, limit: u32) -> Scope<'_> {
        Scope {
            endpoint: "merchants",
            filters,
            limit,
        }
    }

    #[test]
    fn round_trips_a_position() {
        let signer = CursorSigner::new(b"secret".to_vec());
        let token = signer.encode(&scope("", 5), &("abc", 7));
        let back: (String, i32) = signer.decode(&scope("", 5), &token).unwrap();
        assert_eq!(back, ("abc".to_owned(), 7));
    }

    #[test]
    fn a_changed_limit_or_filter_is_a_mismatch() {
        let signer = CursorSigner::new(b"secret".to_vec());
        let token = signer.encode(&scope("q=zoo", 5), &1);
        let err = signer
            .decode::<i32>(&scope("q=zoo", 6), &token)
            .unwrap_err();
        assert_eq!(err.kind(), ProblemType::NextTokenMismatch);
        let err = signer
            .decode::<i32>(&scope("q=park", 5), &token)
            .unwrap_err();
        assert_eq!(err.kind(), ProblemType::NextTokenMismatch);
    }

    #[test]
    fn tampered_foreign_or_garbage_tokens_are_invalid() {
        let signer = CursorSigner::new(b"secret".to_vec());
        let token = signer.encode(&scope("", 5), &1);
        let mut bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        let tampered = URL_SAFE_NO_PAD.encode(bytes);
        for bad in [tampered.as_str(), "", "!!!", "AAAA"] {
            let err = signer.decode::<i32>(&scope("", 5), bad).unwrap_err();
            assert_eq!(err.kind(), ProblemType::NextTokenInvalid, "token {bad:?}");
        }
        let other_key = CursorSigner::new(b"other".to_vec());
        let err = other_key.decode::<i32>(&scope("", 5), &token).unwrap_err();
        assert_eq!(err.kind(), ProblemType::NextTokenInvalid);
        let other_endpoint = Scope {
            endpoint: "orders",
            filters: "",
            limit: 5,
        };
        let err = signer.decode::<i32>(&other_endpoint, &token).unwrap_err();
        assert_eq!(err.kind(), ProblemType::NextTokenInvalid);
    }
}
