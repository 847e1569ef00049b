//! The file tools behind `list_files`, `read_file`, `search`, `write_file` and `edit_file`. Each
//! takes a [`WorkDir`] and typed arguments and returns the text sent back to the model, bounded
//! in size; every path goes through [`WorkDir::resolve`], and the resolved path is opened
//! through [`WorkDir::tree`] (no link followed, no special file opened, reads capped). [`existing_file`] and [`read_key`]
//! name files the way the tool box's read-before-write rule tracks them.

use crate::closest::closest_hint;
use crate::snapshot::walk_files;
use crate::tree::{Kind, Links};
use crate::{ToolError, WorkDir};
use sha2::{Digest, Sha256};
use std::path::Path;

/// Entries `list_files` shows at most.
pub const LIST_CAP: usize = 500;
/// Bytes of file content `read_file` returns at most.
pub const READ_CAP_BYTES: usize = 256 * 1024;
/// Bytes `read_file` reads from disk at most (line ranges beyond this are not reachable).
pub const READ_LIMIT_BYTES: u64 = 16 * 1024 * 1024;
/// Matches `search` shows at most.
pub const SEARCH_CAP: usize = 200;
/// Files larger than this are skipped by `search`.
pub const SEARCH_FILE_LIMIT: u64 = 2 * 1024 * 1024;
/// Largest file `write_file` / `edit_file` produce.
pub const WRITE_LIMIT_BYTES: usize = 8 * 1024 * 1024;

fn display(rel: &str) -> String {
    let t = rel.trim();
    if t.is_empty() {
        ".".into()
    } else {
        t.trim_start_matches("./").to_string()
    }
}

/// A `/`-separated relative path for what `resolve` returned.
fn rel_of(wd: &WorkDir, abs: &Path, fallback: &str) -> String {
    wd.relative(abs).unwrap_or_else(|| display(fallback))
}

fn is_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|b| *b == 0)
}

/// `list_files {path?}`.
pub fn list_files(wd: &WorkDir, path: Option<&str>) -> Result<String, ToolError> {
    let rel = path.unwrap_or(".");
    let abs = wd.resolve(rel, false)?;
    let prefix = wd.relative(&abs).unwrap_or_else(|| ".".into());
    match wd.tree().kind(&prefix)? {
        Kind::Dir => {}
        Kind::Missing => return Err(ToolError::NotFound(display(rel))),
        _ => return Ok(rel_of(wd, &abs, rel)),
    }
    // Walk from the root so the root's .gitignore applies, keeping only what is under `abs`.
    // A symlink is listed as a link with its target text: kotef shows links, it never
    // follows them on the host.
    let files: Vec<String> = walk_files(wd.root(), &[])
        .1
        .into_iter()
        .filter(|w| prefix == "." || w.rel.starts_with(&format!("{prefix}/")))
        .map(|w| match w.link {
            Some(target) => format!("{} -> {target}", w.rel),
            None => w.rel,
        })
        .collect();
    if files.is_empty() {
        return Ok(format!("(no files under {})", display(rel)));
    }
    let total = files.len();
    let mut out = files
        .into_iter()
        .take(LIST_CAP)
        .collect::<Vec<_>>()
        .join("\n");
    if total > LIST_CAP {
        out.push_str(&format!(
            "\n[... {} more files not shown; list a subfolder to see them]",
            total - LIST_CAP
        ));
    }
    Ok(out)
}

/// `read_file {path, start_line?, end_line?}`: 1-based inclusive line range; the header reports
/// the range and the total number of lines.
pub fn read_file(
    wd: &WorkDir,
    path: &str,
    start_line: Option<u64>,
    end_line: Option<u64>,
) -> Result<String, ToolError> {
    let abs = wd.resolve(path, false)?;
    let shown = rel_of(wd, &abs, path);
    let read = wd.tree().read(&shown, READ_LIMIT_BYTES)?;
    let bytes = read.bytes;
    if is_binary(&bytes) {
        return Err(ToolError::Binary {
            path: shown,
            size: read.size,
        });
    }
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = lines.len() as u64;
    let start = start_line.unwrap_or(1).max(1);
    let end = end_line.unwrap_or(total).min(total);
    if let (Some(s), Some(e)) = (start_line, end_line) {
        if e < s {
            return Err(ToolError::BadArguments {
                tool: "read_file".into(),
                message: format!("end_line {e} is before start_line {s}"),
            });
        }
    }
    let cut_on_disk = read.truncated;
    let total_note = if cut_on_disk {
        format!("{total}+ lines; only the first {READ_LIMIT_BYTES} bytes are readable")
    } else {
        format!("{total} lines")
    };
    if total == 0 {
        return Ok(format!("[{shown}: empty file]"));
    }
    if start > total {
        return Err(ToolError::BadArguments {
            tool: "read_file".into(),
            message: format!("start_line {start} is past the end of {shown} ({total_note})"),
        });
    }
    let mut body = String::new();
    let mut last = start - 1;
    let mut capped = false;
    for l in &lines[(start - 1) as usize..end as usize] {
        if body.len() + l.len() > READ_CAP_BYTES {
            capped = true;
            break;
        }
        body.push_str(l);
        last += 1;
    }
    let mut out = format!("[{shown}: lines {start}-{last} of {total_note}]\n{body}");
    if capped {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!(
            "[... cut at {READ_CAP_BYTES} bytes; read from line {} on with start_line]",
            last + 1
        ));
    }
    Ok(out)
}

/// `search {pattern, path?}`: regex over text files (gitignore honoured), `path:line: text`,
/// source files before tests and vendored or generated ones ([`crate::locate::rank`]).
pub fn search(wd: &WorkDir, pattern: &str, path: Option<&str>) -> Result<String, ToolError> {
    let re = regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| ToolError::InvalidRegex {
            pattern: pattern.to_string(),
            message: e
                .to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .to_string(),
        })?;
    let rel = path.unwrap_or(".");
    let abs = wd.resolve(rel, false)?;
    let prefix = wd.relative(&abs).unwrap_or_else(|| ".".into());
    let candidates: Vec<String> = match wd.tree().kind(&prefix)? {
        Kind::Missing => return Err(ToolError::NotFound(display(rel))),
        Kind::Dir => walk_files(wd.root(), &[])
            .1
            .into_iter()
            .filter(|w| {
                w.link.is_none() && (prefix == "." || w.rel.starts_with(&format!("{prefix}/")))
            })
            .map(|w| w.rel)
            .collect(),
        _ => vec![prefix.clone()],
    };
    // The project's source first, its tests next, vendored and generated files last: the
    // capped hits go to the code a fix is in.
    let mut candidates = candidates;
    candidates.sort_by_key(|p| crate::locate::rank(p));
    let mut hits = Vec::new();
    let mut more = 0usize;
    for r in candidates {
        let Ok(read) = wd.tree().read(&r, SEARCH_FILE_LIMIT + 1) else {
            continue;
        };
        if read.truncated {
            continue;
        }
        let bytes = read.bytes;
        if is_binary(&bytes) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (i, line) in text.lines().enumerate() {
            if re.is_match(line) {
                if hits.len() < SEARCH_CAP {
                    let shown: String = line.trim_end().chars().take(240).collect();
                    hits.push(format!("{r}:{}: {shown}", i + 1));
                } else {
                    more += 1;
                }
            }
        }
    }
    if hits.is_empty() {
        return Ok(format!("no matches for `{pattern}` under {}", display(rel)));
    }
    let mut out = hits.join("\n");
    if more > 0 {
        out.push_str(&format!(
            "\n[... {more} more matches not shown; narrow the pattern or the path]"
        ));
    }
    Ok(out)
}

/// The outcome of a write: `None` when the content was already there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub path: String,
    pub bytes: usize,
    pub hash: Option<String>,
    /// Top-level definitions the change dropped and that were put back.
    pub kept: Vec<String>,
}

fn sha256_hex(b: &[u8]) -> String {
    hex::encode(Sha256::digest(b))
}

fn write_bytes(wd: &WorkDir, shown: &str, content: &[u8]) -> Result<(), ToolError> {
    Ok(wd.tree().write(shown, content, Links::Refuse)?)
}

fn read_existing(wd: &WorkDir, shown: &str) -> Result<Option<Vec<u8>>, ToolError> {
    match wd.tree().kind(shown)? {
        Kind::Missing => Ok(None),
        Kind::Dir => Err(ToolError::IsADirectory(shown.to_string())),
        Kind::File { size } if size > WRITE_LIMIT_BYTES as u64 => Err(ToolError::TooLarge {
            path: shown.to_string(),
            size,
            limit: WRITE_LIMIT_BYTES as u64,
        }),
        _ => Ok(Some(wd.tree().read(shown, WRITE_LIMIT_BYTES as u64)?.bytes)),
    }
}

/// The workspace-relative name of an existing regular file at `path` (resolved as for a
/// write), `None` when nothing or a directory is there; errors are the write's confinement
/// errors.
pub fn existing_file(wd: &WorkDir, path: &str) -> Result<Option<String>, ToolError> {
    let abs = wd.resolve(path, true)?;
    let rel = rel_of(wd, &abs, path);
    match wd.tree().kind(&rel) {
        Ok(Kind::File { .. }) => Ok(Some(rel)),
        _ => Ok(None),
    }
}

/// The workspace-relative name `read_file` read at `path`, as [`existing_file`] names it.
pub fn read_key(wd: &WorkDir, path: &str) -> Option<String> {
    let abs = wd.resolve(path, false).ok()?;
    Some(rel_of(wd, &abs, path))
}

/// `write_file {path, content}`: creates parent folders; identical content is a no-op.
pub fn write_file(wd: &WorkDir, path: &str, content: &str) -> Result<Written, ToolError> {
    let abs = wd.resolve(path, true)?;
    let shown = rel_of(wd, &abs, path);
    if abs == wd.root() {
        return Err(ToolError::IsADirectory(shown));
    }
    if content.len() > WRITE_LIMIT_BYTES {
        return Err(ToolError::TooLarge {
            path: shown,
            size: content.len() as u64,
            limit: WRITE_LIMIT_BYTES as u64,
        });
    }
    let existing = read_existing(wd, &shown)?;
    // A definition the new content drops is put back: small models write only what they add.
    let (content, kept) = match existing
        .as_deref()
        .and_then(|b| std::str::from_utf8(b).ok())
    {
        Some(old) => crate::lenient::keep_definitions(&shown, old, content),
        None => (content.to_string(), Vec::new()),
    };
    let content = content.as_str();
    if existing.as_deref() == Some(content.as_bytes()) {
        return Ok(Written {
            path: shown,
            bytes: content.len(),
            hash: None,
            kept,
        });
    }
    write_bytes(wd, &shown, content.as_bytes())?;
    Ok(Written {
        path: shown,
        bytes: content.len(),
        hash: Some(sha256_hex(content.as_bytes())),
        kept,
    })
}

/// `edit_file {path, old, new}`: `old` must occur exactly once and differ from `new`; when it
/// occurs nowhere the error shows the file's closest lines.
pub fn edit_file(wd: &WorkDir, path: &str, old: &str, new: &str) -> Result<Written, ToolError> {
    if old.is_empty() {
        return Err(ToolError::EditEmptyOld);
    }
    if old == new {
        return Err(ToolError::EditNoChange);
    }
    let abs = wd.resolve(path, true)?;
    let shown = rel_of(wd, &abs, path);
    let bytes = read_existing(wd, &shown)?.ok_or_else(|| ToolError::NotFound(shown.clone()))?;
    if is_binary(&bytes) {
        return Err(ToolError::Binary {
            path: shown,
            size: bytes.len() as u64,
        });
    }
    let text = String::from_utf8(bytes).map_err(|_| ToolError::Io {
        op: "editing",
        path: shown.clone(),
        message: "the file is not valid UTF-8".into(),
    })?;
    // Copy mistakes (line-number prefixes, a wrong indent) are forgiven when unambiguous.
    let forgiven = (!text.contains(old))
        .then(|| crate::lenient::forgiving_match(&text, old, new))
        .flatten();
    let (old, new) = match &forgiven {
        Some((o, n)) => (o.as_str(), n.as_str()),
        None => (old, new),
    };
    let count = text.matches(old).count();
    match count {
        0 => {
            return Err(ToolError::EditNoMatch {
                closest: closest_hint(&text, old),
                path: shown,
            })
        }
        1 => {}
        n => {
            return Err(ToolError::EditManyMatches {
                path: shown,
                count: n,
            })
        }
    }
    let updated = text.replacen(old, new, 1);
    let (updated, kept) = crate::lenient::keep_definitions(&shown, &text, &updated);
    if updated.len() > WRITE_LIMIT_BYTES {
        return Err(ToolError::TooLarge {
            path: shown,
            size: updated.len() as u64,
            limit: WRITE_LIMIT_BYTES as u64,
        });
    }
    if updated == text {
        return Ok(Written {
            path: shown,
            bytes: updated.len(),
            hash: None,
            kept,
        });
    }
    write_bytes(wd, &shown, updated.as_bytes())?;
    Ok(Written {
        path: shown,
        bytes: updated.len(),
        hash: Some(sha256_hex(updated.as_bytes())),
        kept,
    })
}
