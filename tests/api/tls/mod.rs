//! TLS against real servers, each under a throwaway CA the test makes with the `openssl` CLI
//! (scripts/setup installs it): PostgreSQL with every sslmode, SMTP with STARTTLS and
//! implicit TLS, Redis over rediss://, webhooks and the S3 store over HTTPS with `[tls]
//! extra_ca_file`, and the one-sentence start-up errors of the real binary.

mod postgres;
mod redis;
mod s3;
mod smtp;
mod startup;
mod webhooks;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A certificate authority of the test's own, in a temporary directory.
pub struct TestCa {
    pub dir: tempfile::TempDir,
    /// The CA's certificate (PEM): what a client is told to trust.
    pub cert: PathBuf,
    key: PathBuf,
}

/// A certificate the CA issued and its key (PEM files).
pub struct Issued {
    pub cert: PathBuf,
    pub key: PathBuf,
}

fn openssl(args: &[&str], dir: &Path) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("openssl CLI (scripts/setup installs it): {e}"));
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const EC_KEY: [&str; 4] = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"];

impl TestCa {
    pub fn new(name: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = (dir.path().join("ca.pem"), dir.path().join("ca.key"));
        let subject = format!("/CN={name}");
        let mut args = vec!["req", "-x509", "-nodes", "-days", "2"];
        args.extend(EC_KEY);
        args.extend(["-keyout", "ca.key", "-out", "ca.pem", "-subj", &subject]);
        args.extend(["-addext", "basicConstraints=critical,CA:TRUE"]);
        args.extend(["-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
        openssl(&args, dir.path());
        Self { dir, cert, key }
    }

    /// A server certificate for `localhost` (by name only, unless `with_ip`: then also
    /// 127.0.0.1), also good for client authentication as `common_name`.
    pub fn issue(&self, file: &str, common_name: &str, with_ip: bool) -> Issued {
        let d = self.dir.path();
        let (cert, key, csr) = (
            format!("{file}.pem"),
            format!("{file}.key"),
            format!("{file}.csr"),
        );
        let ext = format!("{file}.ext");
        let sans = if with_ip {
            "DNS:localhost,IP:127.0.0.1"
        } else {
            "DNS:localhost"
        };
        std::fs::write(
            d.join(&ext),
            format!(
                "subjectAltName={sans}\nbasicConstraints=CA:FALSE\n\
                 keyUsage=digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n"
            ),
        )
        .unwrap();
        let subject = format!("/CN={common_name}");
        let mut args = vec!["req", "-nodes"];
        args.extend(EC_KEY);
        args.extend(["-keyout", &key, "-out", &csr, "-subj", &subject]);
        openssl(&args, d);
        let ca_key = self.key.display().to_string();
        let ca_cert = self.cert.display().to_string();
        openssl(
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                &ca_cert,
                "-CAkey",
                &ca_key,
                "-CAcreateserial",
                "-days",
                "2",
                "-out",
                &cert,
                "-extfile",
                &ext,
            ],
            d,
        );
        // PKCS#8, the form every client here reads (openssl writes SEC1 for EC keys).
        let pk8 = format!("{file}.pk8");
        openssl(
            &["pkcs8", "-topk8", "-nocrypt", "-in", &key, "-out", &pk8],
            d,
        );
        std::fs::rename(d.join(&pk8), d.join(&key)).unwrap();
        Issued {
            cert: d.join(cert),
            key: d.join(key),
        }
    }
}

/// A loopback port where nothing listens, held for as long as the value lives: the socket is
/// bound but never listens, so a connection is refused and no other test can take the port in
/// the meantime (a port merely found free was once taken by a parallel test's server, which
/// answered "connection closed" instead of refusing).
pub struct ClosedPort {
    socket: tokio::net::TcpSocket,
}

impl ClosedPort {
    pub fn bind() -> Self {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        Self { socket }
    }

    pub fn port(&self) -> u16 {
        self.socket.local_addr().unwrap().port()
    }
}

/// A free loopback port, for a server the test starts itself.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
