//! A throwaway `redis-server` on a free loopback port (scripts/setup installs it), stopped
//! when dropped; shared by the test binaries that run several nodes over one Redis.
// Each test binary uses its part of it.
#![allow(dead_code)]

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Redis {
    child: Child,
    pub port: u16,
    pub url: String,
}

impl Redis {
    pub fn start() -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Self::start_on(port)
    }

    /// A server on `port` (again, after [`Redis::stop`]: the nodes reconnect to the same URL).
    pub fn start_on(port: u16) -> Self {
        let child = Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
            ])
            .args(["--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server (scripts/setup installs it)");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Self {
            child,
            port,
            url: format!("redis://127.0.0.1:{port}/"),
        }
    }

    /// Waits until `n` servers listen under the adapter key `key`: the subscribers of its
    /// request channel of `/`, which is how Node's `serverCount` counts them.
    pub async fn wait_for_servers(&self, key: &str, n: usize) {
        let client = redis::Client::open(self.url.as_str()).expect("redis url");
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Ok(mut conn) = client.get_multiplexed_async_connection().await {
                let counts: Vec<(String, usize)> = redis::cmd("PUBSUB")
                    .arg("NUMSUB")
                    .arg(format!("{key}-request#/#"))
                    .query_async(&mut conn)
                    .await
                    .unwrap_or_default();
                if counts.first().map(|c| c.1) == Some(n) {
                    return;
                }
            }
            assert!(
                Instant::now() < deadline,
                "{n} servers never subscribed under {key}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Kills the server (every connection to it drops) and waits until it is gone.
    pub fn stop(mut self) -> u16 {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.port
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
