//! The `strict` profile's allow-list: build, test and lint tools, read-only shell commands,
//! Python run on the workspace's own scripts, and no file-writing redirection.

use super::*;

fn strict_denied(p: &str) -> String {
    format!(
        "`{p}` is not allowed under the strict profile (allowed: build, test and lint tools such as \
         cargo, npm test, npx, node, pytest, python -m pytest, go test/vet/build, make, ruff, \
         eslint, mypy, and read-only commands such as ls, cat, grep, find, git status/diff/log/show)"
    )
}

/// What the strict profile refuses before the program is looked at: output redirected into a
/// file, and `LD_*` assignments.
fn strict_redirects_and_assignments(c: &SimpleCommand) -> Result<(), String> {
    for r in &c.redirects {
        if r.writes_file() {
            return Err(format!(
                "output redirection into a file (`{} {}`) is not allowed under the strict profile; use write_file",
                r.op, r.target
            ));
        }
    }
    for w in &c.words {
        if !is_assignment(w) {
            break;
        }
        if w.starts_with("LD_") {
            return Err(format!(
                "setting `{w}` is not allowed under the strict profile"
            ));
        }
    }
    Ok(())
}

pub(super) fn strict_allows(c: &SimpleCommand, depth: usize) -> Result<(), String> {
    strict_redirects_and_assignments(c)?;
    let Some((p, args)) = program(&c.words) else {
        return Ok(()); // assignments or redirections alone
    };
    let sub = subcommand(args);
    let only = |allowed: &[&str]| -> Result<(), String> {
        match sub {
            Some(s) if allowed.contains(&s) => Ok(()),
            None if args.iter().any(|a| a == "--version" || a == "-V") => Ok(()),
            Some(s) => Err(format!(
                "`{p} {s}` is not allowed under the strict profile (allowed: {p} {})",
                allowed.join(", ")
            )),
            None => Err(strict_denied(p)),
        }
    };
    match p {
        "cargo" => only(&[
            "build",
            "b",
            "check",
            "c",
            "test",
            "t",
            "clippy",
            "fmt",
            "nextest",
            "doc",
            "bench",
            "run",
            "r",
            "metadata",
            "tree",
            "llvm-cov",
            "tarpaulin",
        ]),
        "npm" => only(&["test", "t", "tst", "run", "run-script", "ls", "list"]),
        "yarn" | "pnpm" => only(&[
            "test",
            "run",
            "lint",
            "build",
            "typecheck",
            "jest",
            "vitest",
        ]),
        "go" => only(&["test", "vet", "build", "version", "list", "env", "fmt"]),
        "gradle" => build_tasks(p, args, GRADLE_TASKS),
        "mvn" => build_tasks(p, args, MAVEN_PHASES),
        "bun" => only(&["test", "run"]),
        "deno" => only(&["test", "check", "lint", "fmt", "bench"]),
        "git" => {
            let s = git_subcommand(args);
            match s {
                Some(
                    "status" | "diff" | "log" | "show" | "blame" | "ls-files" | "rev-parse"
                    | "grep" | "shortlog" | "describe",
                ) => Ok(()),
                Some("branch") if args.iter().skip(1).all(|a| a.starts_with('-')) => Ok(()),
                Some(s) => Err(format!(
                    "`git {s}` is not allowed under the strict profile (allowed: git status, diff, log, show, blame, ls-files, rev-parse, grep)"
                )),
                None => Err(strict_denied("git")),
            }
        }
        "python" | "python3" | "py" => python_allowed(p, args),
        p if p.starts_with("python3.") => python_allowed(p, args),
        "find" => {
            let bad = [
                "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf",
                "-fls",
            ];
            match args.iter().find(|a| bad.contains(&a.as_str())) {
                Some(a) => Err(format!(
                    "`find {a}` is not allowed under the strict profile"
                )),
                None => Ok(()),
            }
        }
        "sed" => {
            let in_place = args.iter().any(|a| {
                a == "--in-place"
                    || a.starts_with("--in-place=")
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
            });
            if in_place {
                Err("`sed -i` is not allowed under the strict profile; use edit_file".into())
            } else {
                Ok(())
            }
        }
        "sh" | "bash" | "dash" | "zsh" => match shell_c_arg(c) {
            Some(inner) => check(Profile::Strict, &inner, depth + 1),
            None => Err(format!(
                "`{p}` running a script is not allowed under the strict profile"
            )),
        },
        "env" | "xargs" | "nice" | "time" => Ok(()),
        "make" | "gmake" | "npx" | "node" | "pytest" | "py.test" | "tox" | "nox" | "ruff"
        | "eslint" | "mypy" | "black" | "flake8" | "pylint" | "isort" | "prettier" | "tsc"
        | "jest" | "vitest" | "mocha" | "rustfmt" | "rustc" | "gofmt" | "golangci-lint"
        | "shellcheck" | "ls" | "cat" | "head" | "tail" | "grep" | "egrep" | "fgrep" | "rg"
        | "wc" | "echo" | "printf" | "pwd" | "true" | "false" | "cd" | "sort" | "uniq" | "cut"
        | "tr" | "diff" | "cmp" | "tree" | "file" | "stat" | "du" | "df" | "which" | "type"
        | "basename" | "dirname" | "realpath" | "readlink" | "date" | "whoami" | "uname" | "nl"
        | "column" | "jq" | "test" | "[" | "sleep" | "printenv" | "sha256sum" | "md5sum" => Ok(()),
        p => Err(strict_denied(p)),
    }
}

/// Gradle tasks (also module-qualified, `:app:test`) the strict profile runs.
const GRADLE_TASKS: &[&str] = &[
    "test",
    "check",
    "build",
    "assemble",
    "classes",
    "testClasses",
    "compileJava",
    "compileTestJava",
    "compileKotlin",
    "compileTestKotlin",
    "lint",
    "spotlessCheck",
    "clean",
    "jar",
    "tasks",
    "dependencies",
];
/// Maven phases and goals the strict profile runs.
const MAVEN_PHASES: &[&str] = &[
    "validate",
    "compile",
    "test-compile",
    "test",
    "package",
    "verify",
    "install",
    "clean",
    "spotless:check",
    "checkstyle:check",
    "dependency:tree",
];

/// A build tool whose every task (the words that are not options or option values) is one
/// of `allowed`; options (`-q`, `--offline`, `-Dtest=FooTest`, `--tests X`) pass.
fn build_tasks(p: &str, args: &[String], allowed: &[&str]) -> Result<(), String> {
    let mut tasks = Vec::new();
    let mut skip = false;
    for a in args {
        if std::mem::take(&mut skip) {
            continue;
        }
        if a.starts_with('-') {
            // Options that take the next word as their value.
            skip = matches!(
                a.as_str(),
                "--tests" | "-pl" | "--projects" | "-P" | "-f" | "-p"
            );
            continue;
        }
        tasks.push(
            a.rsplit(':')
                .next()
                .filter(|_| p == "gradle")
                .unwrap_or(a.as_str()),
        );
    }
    match tasks.iter().find(|t| !allowed.contains(t)) {
        Some(t) => Err(format!(
            "`{p} {t}` is not allowed under the strict profile (allowed: {p} {})",
            allowed.join(", ")
        )),
        None if tasks.is_empty() && !args.iter().any(|a| a == "--version" || a == "-v") => {
            Err(strict_denied(p))
        }
        None => Ok(()),
    }
}

fn python_allowed(p: &str, args: &[String]) -> Result<(), String> {
    let modules = [
        "pytest",
        "unittest",
        "mypy",
        "ruff",
        "black",
        "flake8",
        "pylint",
        "py_compile",
        "compileall",
        "doctest",
        "isort",
    ];
    for (i, a) in args.iter().enumerate() {
        match a.as_str() {
            "--version" | "-V" => return Ok(()),
            "-m" => {
                return match args.get(i + 1) {
                    Some(m) if modules.contains(&m.as_str()) => Ok(()),
                    Some(m) => Err(format!(
                    "`{p} -m {m}` is not allowed under the strict profile (allowed modules: {})",
                    modules.join(", ")
                )),
                    None => Err(strict_denied(p)),
                }
            }
            a if a.starts_with("-m") && modules.contains(&&a[2..]) => return Ok(()),
            "-c" => break,
            a if a.starts_with('-') => continue,
            // A script in the workspace, as `node file.js` is allowed.
            a if is_workspace_script(a) => return Ok(()),
            _ => break,
        }
    }
    Err(format!(
        "`{p}` is allowed under the strict profile only as `{p} -m pytest` (or unittest, mypy, ruff, ...) or `{p} FILE.py` for a script in the repository"
    ))
}

/// A relative `.py` path that stays inside the workspace.
fn is_workspace_script(a: &str) -> bool {
    a.ends_with(".py")
        && !a.starts_with('/')
        && !a.starts_with('~')
        && !a.split('/').any(|c| c == "..")
}
