//! Runs a command-line tool (ffmpeg, ffprobe, tesseract) as a child process without blocking
//! the executor: bounded by a timeout, killed when the caller gives up or the time runs out.

use std::ffi::OsStr;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("{program} could not be started: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("{program} timed out after {secs} s")]
    TimedOut { program: String, secs: u64 },
    /// The tool ran and exited non-zero; `stderr` is the end of what it said.
    #[error("{program} failed ({status}): {stderr}")]
    Failed {
        program: String,
        status: String,
        stderr: String,
    },
}

/// Keeps the end of a tool's complaint: that is where ffmpeg and friends say what went wrong.
const STDERR_TAIL: usize = 600;

/// Runs `program args…` with `env` added to its environment, feeding `stdin` when given, and
/// returns what it printed on stdout when it exits zero. The child is killed if `timeout`
/// passes or this future is dropped.
pub async fn run<I, S>(
    program: &str,
    args: I,
    env: &[(&str, &str)],
    stdin: Option<Vec<u8>>,
    timeout: Duration,
) -> Result<Vec<u8>, ToolError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| ToolError::Spawn {
            program: program.to_owned(),
            source,
        })?;
    let feed = child.stdin.take().zip(stdin);
    // Written alongside the wait: a child that fills its stdout pipe before reading all of
    // stdin would otherwise never finish.
    let write = async move {
        if let Some((mut pipe, data)) = feed {
            // A tool that stops reading early says why on stderr and exits non-zero.
            let _ = pipe.write_all(&data).await;
        }
    };
    let work = async { tokio::join!(write, child.wait_with_output()).1 };
    let output = tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| ToolError::TimedOut {
            program: program.to_owned(),
            secs: timeout.as_secs(),
        })?
        .map_err(|source| ToolError::Spawn {
            program: program.to_owned(),
            source,
        })?;
    if output.status.success() {
        return Ok(output.stdout);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let trimmed = stderr.trim();
    let cut = trimmed
        .char_indices()
        .rev()
        .nth(STDERR_TAIL)
        .map_or(0, |(i, _)| i);
    Err(ToolError::Failed {
        program: program.to_owned(),
        status: output.status.to_string(),
        stderr: trimmed[cut..].to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_tool_is_fed_stdin_and_killed_at_its_timeout() {
        let out = run(
            "cat",
            ["-"],
            &[],
            Some(b"hello".to_vec()),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
        assert_eq!(out, b"hello");
        let slow = run("sleep", ["5"], &[], None, Duration::from_millis(100)).await;
        assert!(matches!(slow, Err(ToolError::TimedOut { .. })), "{slow:?}");
        let missing = run(
            "no-such-tool-here",
            ["x"],
            &[],
            None,
            Duration::from_secs(1),
        )
        .await;
        assert!(
            matches!(missing, Err(ToolError::Spawn { .. })),
            "{missing:?}"
        );
        let failed = run(
            "sh",
            ["-c", "echo $WORD >&2; exit 3"],
            &[("WORD", "boom")],
            None,
            Duration::from_secs(5),
        )
        .await;
        match failed {
            Err(ToolError::Failed { stderr, .. }) => assert_eq!(stderr, "boom"),
            other => panic!("{other:?}"),
        }
    }
}
