//! The red-team suite for what a sandboxed command sees of the host (issue "the sandbox shows
//! the host"; SECURITY.md, "What the sandbox shows"). Each test is one attack by a repository,
//! through the real `kotef run` with `sandbox = "bwrap"`: the repository's test command (or its
//! `setup`) tries to read or reach something of the host and writes what it got into the work
//! tree, and the test checks it got nothing. Each failed on the sandbox that bound the whole
//! host read-only (`--ro-bind / /`) and hid a list.
//!
//! | row | attack | test |
//! |---|---|---|
//! | 1 | read the runner's `RUNNER_TEMP` (actions/checkout's credentials file) | `the_runners_temp_dir_and_its_credentials_are_not_in_the_sandbox` |
//! | 1 | read `~/.ssh`, `~/.aws` of the user kotef runs as | `the_home_directory_shows_its_toolchains_and_no_secrets` |
//! | 2 | connect to a daemon's unix socket under `/run` (docker.sock) | `a_host_daemons_socket_under_run_is_unreachable` |
//! | 2 | connect to an abstract unix socket (a session bus, an agent) | `an_abstract_unix_socket_on_the_host_is_unreachable` |
//! | 3 | `setup` reads cloud metadata on a link-local/loopback address | `setup_cannot_reach_loopback_metadata_and_says_what_was_refused` |
//! | 3 | `setup` still installs from a registry the operator allows | `setup_reaches_a_registry_the_operator_names` |
//! | — | `setup` could not find `~/.cargo/bin` (its `HOME` was moved) | `setup_finds_a_toolchain_under_the_home_directory` |
//! | — | kotef runs as root: the command keeps root's capabilities (mknod, mount) | `a_sandboxed_command_has_no_capabilities` |
//!
//! Without a working bubblewrap these tests fail in CI (`CI` set) and are skipped locally,
//! saying so.

mod support;

use kotef_core::TerminalStatus;
use kotef_testkit::Ran;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use support::recording_model::RecordingModel;

/// Whether the sandbox can run here; outside CI a missing bwrap skips the test (said on stderr).
fn sandbox_available(test: &str) -> bool {
    match kotef_tools::bwrap_status() {
        Ok(_) => true,
        Err(why) if std::env::var_os("CI").is_some() => {
            panic!("{test}: CI needs a working bubblewrap: {why}")
        }
        Err(why) => {
            eprintln!("skipping {test}: no working bubblewrap here ({why})");
            false
        }
    }
}

/// A directory outside `/tmp` (the sandbox's own `/tmp` hides the host's whatever the binds),
/// as a runner's home or `RUNNER_TEMP` would be: under cargo's target directory, or, for a
/// checkout that itself lives under `/tmp`, under the user's home.
fn outside_tmp() -> tempfile::TempDir {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let parent = if target.starts_with("/tmp") {
        let home = std::env::var_os("HOME").expect("HOME is set for a directory outside /tmp");
        let dir = Path::new(&home).join(".cache/kotef-test-tmp");
        std::fs::create_dir_all(&dir).unwrap();
        dir
    } else {
        target.to_path_buf()
    };
    assert!(
        !parent.starts_with("/tmp"),
        "these tests need a directory outside /tmp, and {} is inside it",
        parent.display()
    );
    tempfile::tempdir_in(parent).unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A repository whose tests are `check.sh` and whose config forces the sandbox.
fn repo(check: &str, setup: Option<&str>) -> tempfile::TempDir {
    let mut config = "sandbox = \"bwrap\"\ntest_command = \"sh check.sh\"\n".to_string();
    if let Some(s) = setup {
        config.push_str(&format!("setup = {s:?}\n"));
    }
    kotef_testkit::committed_repo(
        &[
            ("check.sh", check),
            ("kotef.toml", config.as_str()),
            (".gitignore", "loot.txt\n"),
        ],
        &[],
    )
}

/// `kotef run` with a model that gives up at once, so only the verifier (and `setup`) run the
/// repository's commands; `env` is added to kotef's environment.
async fn kotef_run(repo: &Path, env: &[(&str, &str)]) -> Ran {
    let model = RecordingModel::start(serde_json::json!({"next": "done", "reason": "stop"})).await;
    model
        .kotef_run(repo, "sk-red-team-0123456789")
        .args(["--goal", "Make the check pass", "--time-budget-s", "60"])
        .envs(env)
        .run()
        .await
}

/// What the repository's command wrote into `loot.txt`.
fn loot(repo: &Path) -> String {
    std::fs::read_to_string(repo.join("loot.txt")).unwrap_or_default()
}

#[tokio::test]
async fn the_runners_temp_dir_and_its_credentials_are_not_in_the_sandbox() {
    if !sandbox_available("runner temp") {
        return;
    }
    let runner_temp = outside_tmp();
    let creds = runner_temp.path().join("git-credentials-6f1d.config");
    write(
        &creds,
        "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic ghs_REDTEAMtoken01\n",
    );
    let dir = repo(
        &format!("cat '{}' > loot.txt 2>&1\n", creds.display()),
        None,
    );
    let temp = runner_temp.path().display().to_string();
    kotef_run(dir.path(), &[("RUNNER_TEMP", temp.as_str())]).await;
    let got = loot(dir.path());
    assert!(
        !got.contains("ghs_REDTEAM"),
        "the credentials leaked: {got}"
    );
    assert!(got.contains("No such file"), "{got}");
}

#[tokio::test]
async fn the_home_directory_shows_its_toolchains_and_no_secrets() {
    if !sandbox_available("home") {
        return;
    }
    let home = outside_tmp();
    write(
        &home.path().join(".ssh/id_ed25519"),
        "PRIVATE-KEY-REDTEAM\n",
    );
    write(
        &home.path().join(".aws/credentials"),
        "aws_secret=REDTEAM\n",
    );
    write(&home.path().join(".pyenv/version"), "3.12.1\n");
    let check = "cat \"$HOME/.ssh/id_ed25519\" \"$HOME/.aws/credentials\" \"$HOME/.pyenv/version\" > loot.txt 2>&1\n";
    let dir = repo(check, None);
    let h = home.path().display().to_string();
    kotef_run(dir.path(), &[("HOME", h.as_str())]).await;
    let got = loot(dir.path());
    assert!(
        !got.contains("REDTEAM"),
        "a secret of the home leaked: {got}"
    );
    assert!(
        got.contains("3.12.1"),
        "the toolchain under the home is missing: {got}"
    );
}

/// A listener on a host unix socket that counts who connects.
fn count_connections(listener: std::os::unix::net::UnixListener) -> std::sync::mpsc::Receiver<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let _ = tx.send(());
            let mut conn = conn;
            let _ = conn.write_all(b"HTTP/1.1 201 Created\r\n\r\n");
            let _ = conn.read(&mut [0u8; 64]);
        }
    });
    rx
}

/// A command that connects to a unix socket (`@name` for an abstract one) and writes the
/// outcome into `loot.txt`.
fn connect_unix(target: &str) -> String {
    let addr = match target.strip_prefix('@') {
        Some(name) => format!("'\\0{name}'"),
        None => format!("'{target}'"),
    };
    format!(
        "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect({addr}); s.sendall(b'POST /containers/create HTTP/1.1\\r\\n\\r\\n'); print('connected', s.recv(64))\" > loot.txt 2>&1\n"
    )
}

#[tokio::test]
async fn a_host_daemons_socket_under_run_is_unreachable() {
    if !sandbox_available("run socket") {
        return;
    }
    // `/run` as on a runner (root here); elsewhere the user's own runtime directory.
    let base = ["/run", "/var/run"]
        .iter()
        .map(PathBuf::from)
        .chain(std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from))
        .find(|d| tempfile::tempfile_in(d).is_ok())
        .expect("a writable /run or XDG_RUNTIME_DIR");
    let path = base.join(format!("kotef-redteam-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let seen = count_connections(std::os::unix::net::UnixListener::bind(&path).unwrap());
    let dir = repo(&connect_unix(&path.display().to_string()), None);
    kotef_run(dir.path(), &[]).await;
    let _ = std::fs::remove_file(&path);
    let got = loot(dir.path());
    assert!(
        seen.try_recv().is_err(),
        "the host daemon was reached: {got}"
    );
    assert!(!got.contains("connected"), "{got}");
}

#[tokio::test]
async fn an_abstract_unix_socket_on_the_host_is_unreachable() {
    if !sandbox_available("abstract socket") {
        return;
    }
    use std::os::linux::net::SocketAddrExt;
    let name = format!("kotef-redteam-{}", std::process::id());
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let seen = count_connections(std::os::unix::net::UnixListener::bind_addr(&addr).unwrap());
    let dir = repo(&connect_unix(&format!("@{name}")), None);
    kotef_run(dir.path(), &[]).await;
    let got = loot(dir.path());
    assert!(
        seen.try_recv().is_err(),
        "the abstract socket was reached: {got}"
    );
    assert!(!got.contains("connected"), "{got}");
}

#[tokio::test]
async fn a_sandboxed_command_has_no_capabilities() {
    if !sandbox_available("capabilities") {
        return;
    }
    let dir = repo("grep CapEff /proc/self/status > loot.txt\n", None);
    kotef_run(dir.path(), &[]).await;
    assert_eq!(loot(dir.path()).trim(), "CapEff:\t0000000000000000");
}

/// A loopback HTTP server that counts requests and answers each with `body`; its port.
async fn http_server(body: &'static str) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut buf = [0u8; 2048];
            let _ = s.read(&mut buf).await;
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            let _ = s.write_all(reply.as_bytes()).await;
        }
    });
    (port, hits)
}

/// A `setup` that fetches `url` through the proxy variables kotef sets into `fetched.txt`.
fn fetch(url: &str) -> String {
    format!(
        "python3 -c \"import urllib.request; open('fetched.txt','wb').write(urllib.request.urlopen('{url}', timeout=10).read())\""
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_cannot_reach_loopback_metadata_and_says_what_was_refused() {
    if !sandbox_available("setup metadata") {
        return;
    }
    let (port, hits) = http_server("{\"AccessKeyId\": \"ASIAREDTEAM\"}").await;
    let url = format!("http://127.0.0.1:{port}/latest/meta-data/iam/security-credentials/");
    let dir = repo("true\n", Some(&fetch(&url)));
    let ran = kotef_run(dir.path(), &[]).await;
    assert_eq!(
        hits.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "metadata was reached"
    );
    assert!(
        ran.stderr.contains(&format!(
            "kotef refused setup's network requests to 127.0.0.1:{port}: 127.0.0.1 is loopback"
        )),
        "{}",
        ran.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_reaches_a_registry_the_operator_names() {
    if !sandbox_available("setup registry") {
        return;
    }
    let (port, hits) = http_server("package-bytes").await;
    let url = format!("http://127.0.0.1:{port}/simple/pkg/");
    let dir = repo("grep -q package-bytes fetched.txt\n", Some(&fetch(&url)));
    let allow = format!("127.0.0.1:{port}");
    let ran = kotef_run(dir.path(), &[("KOTEF_SETUP_NETWORK", allow.as_str())]).await;
    assert_eq!(
        hits.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "{}",
        ran.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("fetched.txt")).unwrap_or_default(),
        "package-bytes"
    );
    assert_eq!(
        ran.summary().terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        ran.stderr
    );
}

/// `setup` finds a toolchain kept under the home directory (`~/.cargo/bin` on `PATH`), as the
/// tests do: its own `HOME` is private, the toolchains in it are the real home's.
#[tokio::test]
async fn setup_finds_a_toolchain_under_the_home_directory() {
    if !sandbox_available("setup toolchain") {
        return;
    }
    let home = outside_tmp();
    let bin = home.path().join(".cargo/bin");
    write(
        &bin.join("kotef-tool"),
        "#!/bin/sh\necho tool-ran > fetched.txt\n",
    );
    std::fs::set_permissions(
        bin.join("kotef-tool"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let dir = repo("grep -q tool-ran fetched.txt\n", Some("kotef-tool"));
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let h = home.path().display().to_string();
    let ran = kotef_run(dir.path(), &[("HOME", h.as_str()), ("PATH", path.as_str())]).await;
    assert_eq!(
        ran.summary().terminal_status,
        TerminalStatus::DoneSuccess,
        "{}",
        ran.stderr
    );
}
