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
    /// A server on a free port. The port is picked, released and bound again by the server,
    /// so another test may take it in between: the server then exits (its bind failed) and
    /// another port is tried, rather than this test talking to a stranger on that port.
    pub fn start() -> Self {
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            if let Some(redis) = Self::try_start_on(port) {
                return redis;
            }
        }
        panic!("redis-server did not start on any of five free ports");
    }

    /// A server on `port` (again, after [`Redis::stop`]: the nodes reconnect to the same URL).
    pub fn start_on(port: u16) -> Self {
        Self::try_start_on(port)
            .unwrap_or_else(|| panic!("redis-server could not listen on port {port}"))
    }

    /// Starts the server and waits until it listens; `None` when it exited first.
    fn try_start_on(port: u16) -> Option<Self> {
        let mut child = Command::new("redis-server")
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
        while !listens_on(child.id(), port) {
            if !matches!(child.try_wait(), Ok(None)) {
                return None;
            }
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Self {
            child,
            port,
            url: format!("redis://127.0.0.1:{port}/"),
        })
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

/// Whether process `pid` itself holds a listening socket of TCP `port` (Linux:
/// `/proc/net/tcp{,6}` name the socket's inode, `/proc/<pid>/fd` the process's sockets). A
/// port that merely accepts connections may be another test's server.
pub fn listens_on(pid: u32, port: u16) -> bool {
    let suffix = format!(":{port:04X}");
    // Columns: sl, local address, remote address, state (0A: listening), …, inode (tenth).
    let inodes: Vec<String> = ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .flat_map(|table| {
            table
                .lines()
                .skip(1)
                .map(|l| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
                .filter(|c| c.len() > 9 && c[1].ends_with(&suffix) && c[3] == "0A")
                .map(|c| format!("socket:[{}]", c[9]))
                .collect::<Vec<_>>()
        })
        .collect();
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok)
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .any(|target| inodes.iter().any(|i| target.as_os_str() == i.as_str()))
}
