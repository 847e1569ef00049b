//! The installer (`scripts/install.sh`) offline: a release directory holding the real `kotef`
//! binary, packed by `scripts/package.sh` exactly as the release workflow packs it
//! (`kotef-<target>.tar.gz` + `SHA256SUMS`), is served over loopback HTTP, and the installer
//! runs against it with its environment inputs. It downloads with curl, so a machine without
//! curl fails these tests (with a message saying so) instead of skipping them.

mod support;

use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use support::release::{asset_name, packed_release, repo_root};

/// The tag the test release is published under.
const VERSION: &str = "v0.0.0-test";

/// A build fallback that must not run: the download paths fail loudly if they take it.
const NO_FALLBACK: &str = "echo 'the build fallback ran' >&2; exit 97";

/// A stand-in for `cargo install`: leaves a `kotef` that prints a version of its own.
const STUB_FALLBACK: &str = "printf '#!/bin/sh\\necho kotef 0.0.0-stub\\n' \
    >\"$KOTEF_INSTALL_DIR/kotef\" && chmod +x \"$KOTEF_INSTALL_DIR/kotef\"";

fn require_curl() {
    let found = Command::new("curl")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "curl is not installed: scripts/install.sh downloads with curl, so these tests need it"
    );
}

/// A release directory (`<root>/<tag>/<asset>`) served over loopback HTTP; 404 for anything
/// it does not hold.
struct Release {
    root: tempfile::TempDir,
    base_url: String,
    fail_with: Arc<Mutex<Option<StatusCode>>>,
    _server: tokio::runtime::Runtime,
}

/// What the loopback server serves: files under `root`, or `fail_with` for every request.
#[derive(Clone)]
struct Served {
    root: Arc<PathBuf>,
    fail_with: Arc<Mutex<Option<StatusCode>>>,
}

impl Release {
    /// The packed asset and its `SHA256SUMS`, as published.
    fn good() -> Self {
        let release = Self::serve();
        let packed = packed_release();
        for name in [asset_name().as_str(), "SHA256SUMS"] {
            std::fs::copy(packed.join(name), release.file(name)).unwrap();
        }
        release
    }

    /// `SHA256SUMS` names the asset, but the asset itself is gone (HTTP 404).
    fn without_asset() -> Self {
        let release = Self::good();
        std::fs::remove_file(release.file(&asset_name())).unwrap();
        release
    }

    /// Nothing published under the tag at all.
    fn empty() -> Self {
        Self::serve()
    }

    /// A release host that answers every request with a server error.
    fn failing() -> Self {
        let release = Self::serve();
        *release.fail_with.lock().unwrap() = Some(StatusCode::INTERNAL_SERVER_ERROR);
        release
    }

    fn file(&self, name: &str) -> PathBuf {
        self.root.path().join(VERSION).join(name)
    }

    fn serve() -> Self {
        require_curl();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join(VERSION)).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let fail_with = Arc::new(Mutex::new(None));
        let served = Served {
            root: Arc::new(root.path().to_path_buf()),
            fail_with: fail_with.clone(),
        };
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new()
            .route("/{*path}", get(serve_file))
            .with_state(served);
        runtime.spawn(async move { axum::serve(listener, app).await });
        Release {
            root,
            base_url: format!("http://{addr}"),
            fail_with,
            _server: runtime,
        }
    }

    /// Runs `scripts/install.sh` against this release into a fresh directory.
    fn install(&self, build_fallback: &str) -> Installed {
        let dir = tempfile::tempdir().unwrap();
        let bin_dir = dir.path().join("bin");
        let output = Command::new("sh")
            .arg(repo_root().join("scripts/install.sh"))
            .env("KOTEF_VERSION", VERSION)
            .env("KOTEF_DOWNLOAD_BASE", &self.base_url)
            .env("KOTEF_INSTALL_DIR", &bin_dir)
            .env("KOTEF_BUILD_FALLBACK", build_fallback)
            .env("KOTEF_DOWNLOAD_RETRIES", "0")
            .env_remove("KOTEF_TARGET")
            .env_remove("KOTEF_SOURCE_DIR")
            .env_remove("KOTEF_REPO")
            .output()
            .expect("sh runs scripts/install.sh");
        Installed {
            output,
            kotef: bin_dir.join("kotef"),
            _dir: dir,
        }
    }
}

async fn serve_file(State(served): State<Served>, UrlPath(path): UrlPath<String>) -> Response {
    let failure = *served.fail_with.lock().unwrap();
    if let Some(status) = failure {
        return status.into_response();
    }
    if path.split('/').any(|part| part == ".." || part.is_empty()) {
        return StatusCode::NOT_FOUND.into_response();
    }
    match tokio::fs::read(served.root.join(&path)).await {
        Ok(bytes) => (StatusCode::OK, bytes).into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

struct Installed {
    output: Output,
    kotef: PathBuf,
    _dir: tempfile::TempDir,
}

impl Installed {
    fn succeeded(&self) -> bool {
        self.output.status.success()
    }

    fn assert_succeeded(&self) {
        assert!(self.succeeded(), "the installer failed:\n{}", self.said());
    }

    fn assert_said(&self, text: &str) {
        assert!(
            self.said().contains(text),
            "the installer did not say {text:?}:\n{}",
            self.said()
        );
    }

    fn said(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    fn assert_built_nothing(&self) {
        assert!(
            !self.said().contains("building kotef instead"),
            "the installer fell back to building:\n{}",
            self.said()
        );
    }

    fn version(&self) -> String {
        let out = Command::new(&self.kotef)
            .arg("--version")
            .output()
            .expect("the installed kotef starts");
        assert!(out.status.success(), "`kotef --version` failed");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

#[test]
fn a_good_release_asset_installs_a_kotef_that_runs() {
    let installed = Release::good().install(NO_FALLBACK);

    installed.assert_succeeded();
    assert_eq!(
        installed.version(),
        format!("kotef {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_tampered_tarball_is_refused_and_nothing_is_installed() {
    let release = Release::good();
    let mut tarball = std::fs::read(release.file(&asset_name())).unwrap();
    tarball.extend_from_slice(b"tampered");
    std::fs::write(release.file(&asset_name()), tarball).unwrap();

    let installed = release.install(NO_FALLBACK);

    assert!(!installed.succeeded(), "a tampered asset was accepted");
    installed.assert_said("checksum mismatch");
    installed.assert_built_nothing();
    assert!(!installed.kotef.exists(), "a kotef was installed anyway");
}

#[test]
fn a_missing_asset_takes_the_build_fallback_and_says_so() {
    let installed = Release::without_asset().install(STUB_FALLBACK);

    installed.assert_succeeded();
    installed.assert_said("was not found (HTTP 404)");
    installed.assert_said("building kotef instead");
    assert_eq!(installed.version(), "kotef 0.0.0-stub");
}

#[test]
fn a_tag_without_a_release_takes_the_build_fallback() {
    let installed = Release::empty().install(STUB_FALLBACK);

    installed.assert_succeeded();
    installed.assert_said("no release v0.0.0-test");
    assert_eq!(installed.version(), "kotef 0.0.0-stub");
}

#[test]
fn a_server_error_fails_the_install_instead_of_building() {
    let installed = Release::failing().install(NO_FALLBACK);

    assert!(
        !installed.succeeded(),
        "a failing release host was accepted"
    );
    installed.assert_said("HTTP 500");
    installed.assert_built_nothing();
    assert!(!installed.kotef.exists(), "a kotef was installed anyway");
}
