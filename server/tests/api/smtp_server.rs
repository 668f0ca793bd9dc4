//! A minimal SMTP server on port 0 that accepts every message, for proving real delivery.

use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    net::TcpListener,
    sync::mpsc,
};

/// The address to send to, and the raw DATA of each message received.
pub async fn start() -> (String, mpsc::UnboundedReceiver<String>) {
    start_on("127.0.0.1:0".parse().unwrap()).await
}

/// A free local address with nothing listening on it (yet): an SMTP server that is down.
pub async fn free_address() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap()
}

/// `start` on `address` (a server coming up where one was down).
pub async fn start_on(address: std::net::SocketAddr) -> (String, mpsc::UnboundedReceiver<String>) {
    let listener = TcpListener::bind(address).await.unwrap();
    let address = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                let (read, mut write) = stream.into_split();
                let mut lines = BufReader::new(read).lines();
                write.write_all(b"220 test-smtp ready\r\n").await.ok();
                let mut data: Option<String> = None;
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Some(body) = data.as_mut() {
                        if line == "." {
                            tx.send(std::mem::take(body)).ok();
                            data = None;
                            write.write_all(b"250 OK queued\r\n").await.ok();
                        } else {
                            // Undo the sender's dot-stuffing (RFC 5321 §4.5.2).
                            let line = line
                                .strip_prefix('.')
                                .filter(|_| line.starts_with(".."))
                                .unwrap_or(&line);
                            body.push_str(line);
                            body.push('\n');
                        }
                        continue;
                    }
                    let verb = line
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_ascii_uppercase();
                    let reply: &[u8] = match verb.as_str() {
                        "EHLO" | "HELO" => b"250 test-smtp\r\n",
                        "DATA" => {
                            data = Some(String::new());
                            b"354 end with .\r\n"
                        }
                        "QUIT" => {
                            write.write_all(b"221 bye\r\n").await.ok();
                            break;
                        }
                        _ => b"250 OK\r\n",
                    };
                    write.write_all(reply).await.ok();
                }
            });
        }
    });
    (format!("smtp://{address}"), rx)
}
