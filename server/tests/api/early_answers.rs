//! An answer given before the request body was read (a refused bearer, a token request over its
//! 16 KiB) reaches a client that is still writing the body, and the connection serves the next
//! request: the server reads the rest of the body up to its limit (`http/drain.rs`).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{spawn_app, TestApp};

/// A 200 KB JSON body, under the 256 KiB body limit and far over what a token request reads.
fn large_json() -> Vec<u8> {
    format!(r#"{{"padding":"{}"}}"#, "x".repeat(200 * 1024)).into_bytes()
}

/// Sends `POST path` with `body` on `stream` the way a slow client does: the head, then the
/// body in 8 KiB pieces with a pause between them, so the server has long answered before the
/// last piece leaves. A write the server refused (a reset connection) fails the test.
async fn post_slowly(stream: &mut TcpStream, path: &str, extra_headers: &str, body: &[u8]) {
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n{extra_headers}\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.expect("head sent");
    for (i, piece) in body.chunks(8 * 1024).enumerate() {
        stream
            .write_all(piece)
            .await
            .unwrap_or_else(|e| panic!("piece {i} of the body was refused: {e}"));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Reads one response from `stream`: its status and its body (by `content-length`; the tests'
/// answers have one).
async fn read_response(stream: &mut TcpStream) -> (u16, String) {
    let mut received = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut buf).await.expect("response read");
        assert!(
            n > 0,
            "the connection closed before a response: {received:?}"
        );
        received.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&received[..head_end]).to_ascii_lowercase();
    let status = head[9..12].parse().expect("status code");
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map(|v| v.trim().parse().expect("content-length"))
        .unwrap_or_else(|| panic!("no content-length in {head}"));
    while received.len() < head_end + length {
        let n = stream.read(&mut buf).await.expect("body read");
        assert!(n > 0, "the connection closed inside the response body");
        received.extend_from_slice(&buf[..n]);
    }
    let body = String::from_utf8_lossy(&received[head_end..head_end + length]).into_owned();
    (status, body)
}

/// Sends the slow request, checks its answer, then asks `/healthz` on the same connection.
async fn assert_answered_while_writing(
    app: &TestApp,
    path: &str,
    extra_headers: &str,
    status: u16,
    problem: &str,
) {
    let address = app.base_url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).await.expect("connected");
    post_slowly(&mut stream, path, extra_headers, &large_json()).await;
    let (got, body) = read_response(&mut stream).await;
    assert_eq!(got, status, "{body}");
    assert!(body.contains(problem), "{body}");
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .expect("second request sent");
    let (next, body) = read_response(&mut stream).await;
    assert_eq!(next, 200, "the next request on the connection: {body}");
}

#[tokio::test]
async fn a_session_request_refused_before_its_body_is_read_still_gets_its_401_and_keeps_the_connection(
) {
    let app = spawn_app().await;
    assert_answered_while_writing(
        &app,
        "/v1/session",
        "authorization: Bearer not-a-token\r\n",
        401,
        "token-invalid",
    )
    .await;
}

#[tokio::test]
async fn a_token_request_over_16_kib_still_gets_its_413_and_keeps_the_connection() {
    let app = spawn_app().await;
    assert_answered_while_writing(&app, "/oauth/token", "", 413, "payload-too-large").await;
}
