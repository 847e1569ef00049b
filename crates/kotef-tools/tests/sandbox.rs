//! The bubblewrap sandbox with real processes: no network (a loopback server the test started is
//! unreachable inside, reachable outside), the workspace and /tmp writable, the host read-only.
//! Where no working bwrap exists, `Bwrap` mode must refuse with a spawn error instead.

use kotef_core::SandboxMode;
use kotef_tools::{bwrap_status, CommandRunner, RunnerConfig};
use std::time::Duration;

fn runner(mode: SandboxMode) -> CommandRunner {
    CommandRunner::new(RunnerConfig {
        timeout: Duration::from_secs(30),
        sandbox: mode,
        ..RunnerConfig::default()
    })
}

fn connect_cmd(port: u16) -> String {
    format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2); print('connected')\""
    )
}

#[tokio::test]
async fn bwrap_mode_without_bwrap_is_a_spawn_error_or_runs_sandboxed() {
    let dir = tempfile::tempdir().unwrap();
    let r = runner(SandboxMode::Bwrap);
    let out = r.run("echo hi", dir.path()).await;
    match bwrap_status() {
        Ok(_) => {
            assert_eq!(r.sandbox_in_force(), "bwrap");
            assert!(out.success(), "{out:?}");
            assert_eq!(out.stdout, "hi\n");
        }
        Err(why) => {
            assert_eq!(r.sandbox_in_force(), "none");
            let e = out
                .spawn_error
                .expect("bwrap required but missing must be a spawn error");
            assert!(e.contains("bwrap") && e.contains(why.as_str()), "{e}");
            // Auto falls back to a plain process.
            let auto = runner(SandboxMode::Auto);
            assert_eq!(auto.sandbox_in_force(), "none");
            assert!(auto.run("true", dir.path()).await.success());
        }
    }
    assert_eq!(runner(SandboxMode::None).sandbox_in_force(), "none");
}

#[tokio::test]
async fn no_network_inside_the_sandbox() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    // Outside: the loopback server is reachable (the kernel completes the handshake via backlog).
    let plain = runner(SandboxMode::None)
        .run(&connect_cmd(port), dir.path())
        .await;
    assert!(plain.success(), "{plain:?}");
    assert!(plain.stdout.contains("connected"));
    if bwrap_status().is_err() {
        return; // covered by the spawn-error test above
    }
    let boxed = runner(SandboxMode::Bwrap)
        .run(&connect_cmd(port), dir.path())
        .await;
    assert!(
        !boxed.success(),
        "connected from inside the sandbox: {boxed:?}"
    );
    assert!(!boxed.stdout.contains("connected"));
    assert!(
        boxed.stderr.contains("Error") || boxed.stderr.contains("unreachable"),
        "{boxed:?}"
    );
    drop(listener);
}

#[tokio::test]
async fn workspace_and_tmp_writable_host_read_only() {
    if bwrap_status().is_err() {
        let r = runner(SandboxMode::Bwrap)
            .run("true", std::env::temp_dir().as_path())
            .await;
        assert!(r.spawn_error.is_some());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let r = runner(SandboxMode::Bwrap);
    let out = r
        .run(
            "echo made > inside.txt && mkdir -p sub && echo x > sub/y && cat inside.txt",
            dir.path(),
        )
        .await;
    assert!(out.success(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("inside.txt")).unwrap(),
        "made\n"
    );
    assert!(dir.path().join("sub/y").is_file());

    let etc = r.run("touch /etc/kotef-sandbox-probe", dir.path()).await;
    assert!(!etc.success(), "{etc:?}");
    assert!(etc.stderr.contains("Read-only"), "{etc:?}");
    assert!(!std::path::Path::new("/etc/kotef-sandbox-probe").exists());

    let other = outside.path().join("escape.txt");
    let out = r
        .run(&format!("echo x > {}", other.display()), dir.path())
        .await;
    assert!(!out.success(), "{out:?}");
    assert!(!other.exists());

    // A fresh /tmp: writable, and nothing leaks to the host's /tmp.
    let name = format!("kotef-sbx-test-{}", std::process::id());
    let out = r
        .run(
            &format!("touch /tmp/{name} && ls /tmp/{name} && echo $TMPDIR"),
            dir.path(),
        )
        .await;
    assert!(out.success(), "{out:?}");
    assert!(out.stdout.contains("/tmp"), "{out:?}");
    assert!(!std::env::temp_dir().join(&name).exists());
}

#[tokio::test]
async fn sandboxed_timeout_kills_everything() {
    if bwrap_status().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let r = CommandRunner::new(RunnerConfig {
        timeout: Duration::from_millis(300),
        sandbox: SandboxMode::Bwrap,
        ..RunnerConfig::default()
    });
    let start = std::time::Instant::now();
    let out = r.run("sleep 30 & sleep 30", dir.path()).await;
    assert!(out.timed_out, "{out:?}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

/// The host's toolchains (found on `PATH` outside) run inside the allow-list sandbox, and a
/// virtualenv made in the work tree works there: the sandbox hides the host, not the tools.
#[tokio::test]
async fn the_hosts_toolchains_and_a_venv_in_the_tree_run_inside() {
    if bwrap_status().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let r = runner(SandboxMode::Bwrap);
    let present = |tool: &str| {
        std::process::Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let tools = [
        "python3", "node", "npm", "cargo", "rustc", "git", "go", "java", "mvn", "gradle",
    ];
    for tool in tools.iter().filter(|t| present(t)) {
        let out = r.run(&format!("{tool} --version"), dir.path()).await;
        assert!(out.success(), "{tool} does not run in the sandbox: {out:?}");
    }
    let venv = r
        .run(
            "python3 -m venv --without-pip .venv && .venv/bin/python -c 'import sys; print(sys.prefix)'",
            dir.path(),
        )
        .await;
    assert!(venv.success(), "{venv:?}");
    assert!(venv.stdout.contains(".venv"), "{venv:?}");
}

/// Row 6 (SECURITY.md): `/dev/shm` is memory outside the work tree the disk quota watches; in
/// the sandbox it is a private tmpfs of its own size, and a command cannot fill it past that.
#[tokio::test]
async fn dev_shm_is_private_and_sized() {
    if bwrap_status().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let over = kotef_tools::quota::SHM_BYTES / (1 << 20) + 16;
    let out = runner(SandboxMode::Bwrap)
        .run(
            &format!("head -c {over}M /dev/zero > /dev/shm/fill"),
            dir.path(),
        )
        .await;
    assert!(!out.success(), "{over} MiB fit in /dev/shm: {out:?}");
    assert!(out.stderr.contains("No space left"), "{out:?}");
}
