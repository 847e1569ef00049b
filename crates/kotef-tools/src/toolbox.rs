//! `ToolBox`: the seven agent tools as the model sees them (JSON schemas) and the one entry point
//! that executes a model's tool call. Bad input of any kind becomes an `is_error` outcome with a
//! clear message, never a panic. Read before write is enforced: `edit_file` and `write_file` on
//! an existing file are refused until it was read (or written) through this tool box.

use crate::file_tools;
use crate::policy::{PolicyDecision, RunPolicy};
use crate::runner::{CommandResult, CommandRunner};
use crate::tool::Tool;
use crate::{ToolError, WorkDir};
use kotef_core::Profile;
use kotef_model::{ToolCall, ToolSchema};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// Which tools a node may call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolSet {
    /// `list_files`, `read_file`, `search`.
    ReadOnly,
    /// All seven.
    Coder,
}

/// The tool names of the contract.
pub const READ_ONLY_TOOLS: [&str; 3] = ["list_files", "read_file", "search"];
pub const ALL_TOOLS: [&str; 7] = [
    "list_files",
    "read_file",
    "search",
    "write_file",
    "edit_file",
    "run_command",
    "done",
];

impl ToolSet {
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Self::ReadOnly => &READ_ONLY_TOOLS,
            Self::Coder => &ALL_TOOLS,
        }
    }

    pub fn contains(self, tool: &str) -> bool {
        self.names().contains(&tool)
    }
}

/// What a tool call did besides its text, for the graph's bookkeeping.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolEffect {
    None,
    /// `write_file` / `edit_file` that changed content; `hash` is the new content's sha256 hex.
    FileWritten {
        path: String,
        hash: String,
    },
    /// `write_file` (or `edit_file`) that left the content as it was.
    Noop {
        path: String,
    },
    Done {
        summary: Option<String>,
    },
    /// `hard`: see [`crate::PolicyDecision::Deny`].
    PolicyDenied {
        command: String,
        reason: String,
        hard: bool,
    },
    CommandRan(CommandResult),
}

/// The result of one tool call: the text for the model, whether it is an error, and its effect.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    pub content: String,
    pub is_error: bool,
    pub effect: ToolEffect,
}

impl ToolOutcome {
    fn ok(content: impl Into<String>, effect: ToolEffect) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            effect,
        }
    }

    fn err(e: ToolError) -> Self {
        Self {
            content: e.to_string(),
            is_error: true,
            effect: ToolEffect::None,
        }
    }
}

/// The tools of one workspace.
#[derive(Debug, Clone)]
pub struct ToolBox {
    workdir: WorkDir,
    runner: CommandRunner,
    /// The run's command policy: the profile, the project's own test command (allowed with
    /// test selectors under every profile) and the repository's `allow` entries. The verifier
    /// decides by the same one.
    policy: RunPolicy,
    /// Workspace-relative files read or written in this run (shared by clones).
    known: Arc<Mutex<HashSet<String>>>,
}

#[derive(Deserialize)]
struct ListArgs {
    path: Option<String>,
}

#[derive(Deserialize)]
struct ReadArgs {
    path: String,
    start_line: Option<u64>,
    end_line: Option<u64>,
}

#[derive(Deserialize)]
struct SearchArgs {
    pattern: String,
    path: Option<String>,
}

#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
}

#[derive(Deserialize)]
struct EditArgs {
    path: String,
    old: String,
    new: String,
}

#[derive(Deserialize)]
struct RunArgs {
    command: String,
}

#[derive(Deserialize)]
struct DoneArgs {
    summary: Option<String>,
}

/// The argument shape of each tool, for error messages.
fn usage(tool: &str) -> &'static str {
    Tool::parse(tool).map_or("{}", Tool::usage)
}

/// Parses a call's arguments: an object, `null` (no arguments), or a string holding a JSON object.
fn args<T: DeserializeOwned>(tool: &str, v: &Value) -> Result<T, ToolError> {
    let bad = |message: String| ToolError::BadArguments {
        tool: tool.to_string(),
        message: format!("{message} (expected {})", usage(tool)),
    };
    let obj = match v {
        Value::Object(_) => v.clone(),
        Value::Null => json!({}),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(o @ Value::Object(_)) => o,
            _ => {
                let shown: String = s.chars().take(80).collect();
                return Err(bad(format!(
                    "arguments must be a JSON object, got the text {shown:?}"
                )));
            }
        },
        other => {
            return Err(bad(format!(
                "arguments must be a JSON object, got {}",
                match other {
                    Value::Array(_) => "an array",
                    Value::Number(_) => "a number",
                    Value::Bool(_) => "a boolean",
                    _ => "something else",
                }
            )))
        }
    };
    serde_json::from_value(obj).map_err(|e| bad(e.to_string()))
}

fn schema(name: &str, description: &str, parameters: Value) -> ToolSchema {
    ToolSchema {
        name: name.to_string(),
        description: description.to_string(),
        parameters,
    }
}

impl ToolBox {
    pub fn new(workdir: WorkDir, runner: CommandRunner, profile: Profile) -> Self {
        Self {
            workdir,
            runner,
            policy: RunPolicy::new(profile),
            known: Arc::default(),
        }
    }

    /// Names the project's own test command, which the agent may then run (with arguments
    /// that select tests) whatever the profile's list says.
    pub fn with_project_command(mut self, command: Option<String>) -> Self {
        self.policy = self.policy.with_project(command);
        self
    }

    /// Sets the run's whole command policy (profile, project command, `allow` entries).
    pub fn with_policy(mut self, policy: RunPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The run's command policy, which the verifier applies too.
    pub fn policy(&self) -> &RunPolicy {
        &self.policy
    }

    /// Counts `path` as read, so `edit_file` / `write_file` may change it: for a caller that
    /// showed the model the file's current text itself (e.g. in a prompt).
    pub fn mark_read(&self, path: &str) {
        remember(&self.known, file_tools::read_key(&self.workdir, path));
    }

    pub fn workdir(&self) -> &WorkDir {
        &self.workdir
    }

    pub fn runner(&self) -> &CommandRunner {
        &self.runner
    }

    pub fn profile(&self) -> Profile {
        self.policy.profile()
    }

    /// JSON schemas of the tools in `set`, in contract order.
    pub fn schemas(&self, set: ToolSet) -> Vec<ToolSchema> {
        let path_prop =
            json!({"type": "string", "description": "Path relative to the repository root"});
        let all = vec![
            schema(
                "list_files",
                "List files in the repository (honours .gitignore, skips .git), optionally under a folder.",
                json!({"type": "object", "properties": {"path": {"type": "string", "description": "Folder relative to the repository root (default: the root)"}}, "additionalProperties": false}),
            ),
            schema(
                "read_file",
                "Read a text file, optionally a 1-based inclusive line range. The reply starts with a header giving the range and the total line count.",
                json!({"type": "object", "properties": {"path": path_prop, "start_line": {"type": "integer", "minimum": 1}, "end_line": {"type": "integer", "minimum": 1}}, "required": ["path"], "additionalProperties": false}),
            ),
            schema(
                "search",
                "Search file contents with a regular expression (Rust regex syntax; honours .gitignore). Replies with `path:line: text` lines.",
                json!({"type": "object", "properties": {"pattern": {"type": "string", "description": "Regular expression"}, "path": {"type": "string", "description": "File or folder to search (default: the whole repository)"}}, "required": ["pattern"], "additionalProperties": false}),
            ),
            schema(
                "write_file",
                "Create or overwrite a file with the given full content (parent folders are created). Writing identical content is a no-op.",
                json!({"type": "object", "properties": {"path": path_prop, "content": {"type": "string", "description": "The complete new content"}}, "required": ["path", "content"], "additionalProperties": false}),
            ),
            schema(
                "edit_file",
                "Replace one exact occurrence of `old` with `new` in a file. `old` must match exactly once (copy it from read_file, including whitespace).",
                json!({"type": "object", "properties": {"path": path_prop, "old": {"type": "string"}, "new": {"type": "string"}}, "required": ["path", "old", "new"], "additionalProperties": false}),
            ),
            schema(
                "run_command",
                "Run a shell command in the repository root (sandboxed, with a timeout and capped output) and get its exit code and output.",
                json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"], "additionalProperties": false}),
            ),
            schema(
                "done",
                "Finish this coding step, with a short summary of what changed.",
                json!({"type": "object", "properties": {"summary": {"type": "string"}}, "additionalProperties": false}),
            ),
        ];
        all.into_iter().filter(|s| set.contains(&s.name)).collect()
    }

    /// Executes one tool call. Unknown tool, a tool not in `set`, bad or missing arguments →
    /// `is_error` with a clear message.
    pub async fn call(&self, call: &ToolCall, set: ToolSet) -> ToolOutcome {
        let name = call.name.as_str();
        let Some(tool) = Tool::parse(name) else {
            return ToolOutcome::err(ToolError::UnknownTool(
                name.to_string(),
                set.names().join(", "),
            ));
        };
        if !set.contains(name) {
            return ToolOutcome::err(ToolError::NotInSet {
                tool: name.to_string(),
                available: set.names().join(", "),
            });
        }
        let a = &call.arguments;
        let result: Result<ToolOutcome, ToolError> = match tool {
            Tool::RunCommand => match args::<RunArgs>(name, a) {
                Ok(x) => Ok(self.run_command(x.command).await),
                Err(e) => Err(e),
            },
            Tool::Done => args::<DoneArgs>(name, a).map(|x| {
                ToolOutcome::ok(
                    json!({"done": true}).to_string(),
                    ToolEffect::Done {
                        summary: x.summary.filter(|s| !s.trim().is_empty()),
                    },
                )
            }),
            Tool::ListFiles | Tool::ReadFile | Tool::Search | Tool::WriteFile | Tool::EditFile => {
                // File tools touch the disk synchronously: keep them off the async workers.
                let (wd, known) = (self.workdir.clone(), self.known.clone());
                let a = a.clone();
                tokio::task::spawn_blocking(move || file_tool(&wd, &known, tool, &a))
                    .await
                    .unwrap_or_else(|e| {
                        Err(ToolError::Io {
                            op: "running",
                            path: name.to_string(),
                            message: format!("the tool failed internally: {e}"),
                        })
                    })
            }
        };
        let outcome = result.unwrap_or_else(ToolOutcome::err);
        tracing::debug!(tool = name, is_error = outcome.is_error, "tool call");
        outcome
    }

    async fn run_command(&self, command: String) -> ToolOutcome {
        if command.trim().is_empty() {
            return ToolOutcome::err(ToolError::BadArguments {
                tool: "run_command".into(),
                message: "`command` is empty".into(),
            });
        }
        if let PolicyDecision::Deny { reason, hard } = self.policy.decide(&command) {
            let instead = self.policy.instead(&command);
            return ToolOutcome {
                content: format!(
                    "command denied by the {} profile: {reason}{}",
                    self.policy.profile().as_str(),
                    if instead.is_empty() {
                        String::new()
                    } else {
                        format!(". {instead}")
                    }
                ),
                is_error: true,
                effect: ToolEffect::PolicyDenied {
                    command,
                    reason,
                    hard,
                },
            };
        }
        let r = self.runner.run(&command, self.workdir.root()).await;
        let mut body = json!({
            "exit_code": r.exit_code,
            "timed_out": r.timed_out,
            "stdout": r.stdout,
            "stderr": r.stderr,
        });
        if r.truncated {
            body["truncated"] = json!(true);
        }
        if let Some(e) = &r.spawn_error {
            body["spawn_error"] = json!(e);
        }
        ToolOutcome {
            content: body.to_string(),
            is_error: !r.success(),
            effect: ToolEffect::CommandRan(r),
        }
    }
}

/// Refuses `tool` on an existing file that is not in `known` (not read in this run).
fn require_read(
    wd: &WorkDir,
    known: &Mutex<HashSet<String>>,
    tool: &'static str,
    path: &str,
) -> Result<(), ToolError> {
    match file_tools::existing_file(wd, path)? {
        Some(rel)
            if !known
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .contains(&rel) =>
        {
            Err(ToolError::NotReadYet { tool, path: rel })
        }
        _ => Ok(()),
    }
}

/// Records `path` as known after a successful read or write.
fn remember(known: &Mutex<HashSet<String>>, key: Option<String>) {
    if let Some(k) = key {
        known.lock().unwrap_or_else(|p| p.into_inner()).insert(k);
    }
}

/// The synchronous file tools.
fn file_tool(
    wd: &WorkDir,
    known: &Mutex<HashSet<String>>,
    tool: Tool,
    a: &Value,
) -> Result<ToolOutcome, ToolError> {
    let name = tool.as_str();
    match tool {
        Tool::ListFiles => args::<ListArgs>(name, a)
            .and_then(|x| file_tools::list_files(wd, x.path.as_deref()))
            .map(|s| ToolOutcome::ok(s, ToolEffect::None)),
        Tool::ReadFile => args::<ReadArgs>(name, a).and_then(|x| {
            let text = file_tools::read_file(wd, &x.path, x.start_line, x.end_line)?;
            remember(known, file_tools::read_key(wd, &x.path));
            Ok(ToolOutcome::ok(text, ToolEffect::None))
        }),
        Tool::Search => args::<SearchArgs>(name, a)
            .and_then(|x| file_tools::search(wd, &x.pattern, x.path.as_deref()))
            .map(|s| ToolOutcome::ok(s, ToolEffect::None)),
        Tool::WriteFile => args::<WriteArgs>(name, a).and_then(|x| {
            require_read(wd, known, "write_file", &x.path)?;
            let w = file_tools::write_file(wd, &x.path, &x.content)?;
            remember(known, Some(w.path.clone()));
            Ok(written_outcome(w, "written"))
        }),
        Tool::EditFile => args::<EditArgs>(name, a).and_then(|x| {
            if x.old == x.new && !x.old.is_empty() {
                return Err(ToolError::EditNoChange);
            }
            require_read(wd, known, "edit_file", &x.path)?;
            let w = file_tools::edit_file(wd, &x.path, &x.old, &x.new)?;
            Ok(written_outcome(w, "edited"))
        }),
        // Not file tools: `call` runs them itself.
        Tool::RunCommand | Tool::Done => Err(ToolError::NotInSet {
            tool: name.to_string(),
            available: "list_files, read_file, search, write_file, edit_file".into(),
        }),
    }
}

fn written_outcome(w: file_tools::Written, verb: &str) -> ToolOutcome {
    match w.hash {
        None => ToolOutcome::ok(
            json!({"noop": true}).to_string(),
            ToolEffect::Noop { path: w.path },
        ),
        Some(hash) => {
            let mut result = json!({verb: w.path, "bytes": w.bytes});
            if !w.kept.is_empty() {
                result["kept"] = json!(w.kept);
                result["note"] = json!(format!(
                    "the new text dropped {}, so they were kept from the old file (a change never deletes a top-level definition)",
                    w.kept.join(", ")
                ));
            }
            ToolOutcome::ok(
                result.to_string(),
                ToolEffect::FileWritten { path: w.path, hash },
            )
        }
    }
}
