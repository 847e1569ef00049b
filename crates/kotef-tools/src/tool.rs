//! The contract's seven tool names as a type: a model's call names a tool by string (any
//! string: a model may invent one), and the tool box and the graph match on [`Tool`] once the
//! name is parsed, never on string literals.

/// One of the agent's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tool {
    ListFiles,
    ReadFile,
    Search,
    WriteFile,
    EditFile,
    RunCommand,
    Done,
}

impl Tool {
    /// Every tool, in the contract's order.
    pub const ALL: [Tool; 7] = [
        Tool::ListFiles,
        Tool::ReadFile,
        Tool::Search,
        Tool::WriteFile,
        Tool::EditFile,
        Tool::RunCommand,
        Tool::Done,
    ];

    /// The tool a call names; `None` for a name the contract does not have.
    pub fn parse(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// The contract's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Tool::ListFiles => "list_files",
            Tool::ReadFile => "read_file",
            Tool::Search => "search",
            Tool::WriteFile => "write_file",
            Tool::EditFile => "edit_file",
            Tool::RunCommand => "run_command",
            Tool::Done => "done",
        }
    }

    /// Whether the tool writes a file (`write_file`, `edit_file`).
    pub fn writes_file(self) -> bool {
        matches!(self, Tool::WriteFile | Tool::EditFile)
    }

    /// Whether a call named `name` writes a file.
    pub fn name_writes_file(name: &str) -> bool {
        Tool::parse(name).is_some_and(Tool::writes_file)
    }

    /// The shape of the tool's arguments, for error messages.
    pub fn usage(self) -> &'static str {
        match self {
            Tool::ListFiles => "{path?}",
            Tool::ReadFile => "{path, start_line?, end_line?}",
            Tool::Search => "{pattern, path?}",
            Tool::WriteFile => "{path, content}",
            Tool::EditFile => "{path, old, new}",
            Tool::RunCommand => "{command}",
            Tool::Done => "{summary?}",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_parsed_back_from_its_name() {
        for t in Tool::ALL {
            assert_eq!(Tool::parse(t.as_str()), Some(t));
        }
    }

    #[test]
    fn a_name_the_contract_lacks_is_no_tool() {
        assert_eq!(Tool::parse("write_files"), None);
        assert_eq!(Tool::parse(""), None);
    }

    #[test]
    fn only_write_and_edit_write_files() {
        let writers: Vec<&str> = Tool::ALL
            .into_iter()
            .filter(|t| t.writes_file())
            .map(Tool::as_str)
            .collect();
        assert_eq!(writers, ["write_file", "edit_file"]);
    }
}
