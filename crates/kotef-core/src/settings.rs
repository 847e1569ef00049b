//! Who owns each setting, and the operator's ceilings.
//!
//! The **operator** runs kotef: server flags and environment, the Action's inputs and secrets.
//! It owns the model (name, endpoint, keys, prices, retries, timeouts), the sandbox and the
//! ceilings. A **repository** owns what its `kotef.toml` says about its own runs: profile, test
//! command, trigger label, instructions, and limits within the operator's ceilings.
//!
//! On a server the repository's file is untrusted input: [`KotefConfig::repository_part`]
//! drops every operator-only field and names it, so the status comment can say what was
//! ignored, and [`Ceilings::clamp`] bounds the limits it asks for. In the Action and on the
//! command line the repository is the operator and its file is taken whole.

use crate::config::{KotefConfig, Limits, ModelConfig};

/// Who may set a config field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// Server flags and environment, the Action's inputs and secrets.
    Operator,
    /// The repository's `kotef.toml` (within the operator's ceilings).
    Repository,
}

impl Owner {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Operator => "operator",
            Self::Repository => "repository",
        }
    }
}

/// The owner of a config field, by its name as written in the file (`profile`,
/// `limits.fix_attempts`, `model.base_url`, ...): everything under `[model]` and `sandbox`
/// belong to the operator, everything else to the repository.
pub fn owner_of(field: &str) -> Owner {
    if field == "sandbox" || field == "model" || field.starts_with("model.") {
        Owner::Operator
    } else {
        Owner::Repository
    }
}

/// How far a repository's config is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Trust {
    /// The repository is the operator (the Action, `kotef run`): its file is taken whole.
    Operator,
    /// A server: operator-only fields are ignored and limits are clamped.
    #[default]
    Untrusted,
}

/// An operator-only field a repository's config set, which was ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// As written in the file: `sandbox`, `[model] base_url`.
    pub field: String,
}

impl std::fmt::Display for Ignored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ignored `{}` from the repository's config: it is operator-only on a server (the operator's setting is used)",
            self.field
        )
    }
}

impl KotefConfig {
    /// The part of this (untrusted) config a repository may set, and the operator-only fields
    /// it tried to set. The `[model]` section and `sandbox` are dropped whole.
    pub fn repository_part(mut self) -> (KotefConfig, Vec<Ignored>) {
        let mut ignored = Vec::new();
        if self.sandbox.take().is_some() {
            ignored.push(Ignored {
                field: "sandbox".into(),
            });
        }
        let model = std::mem::take(&mut self.model);
        ignored.extend(set_fields(&model).into_iter().map(|f| Ignored {
            field: format!("[model] {f}"),
        }));
        (self, ignored)
    }
}

/// The names of the fields `model` sets (any field, including ones added later).
fn set_fields(model: &ModelConfig) -> Vec<String> {
    match serde_json::to_value(model) {
        Ok(serde_json::Value::Object(map)) => map
            .into_iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, _)| k)
            .collect(),
        _ => Vec::new(),
    }
}

/// The operator's caps on what a repository may ask for. `None`: no ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Ceilings {
    /// Most prompt + completion tokens a run may be given.
    pub token_budget: Option<u64>,
    /// Most wall-clock seconds a run may be given.
    pub time_budget_s: Option<u64>,
    /// Most dollars a run may be given (needs a known price for the model).
    pub cost_usd: Option<f64>,
}

impl Ceilings {
    /// A server's ceilings when its operator sets none: the strict profile's token and time
    /// budgets, so an unconfigured server is still bounded.
    pub const SERVER_DEFAULT: Ceilings = Ceilings {
        token_budget: Some(2_000_000),
        time_budget_s: Some(3600),
        cost_usd: None,
    };

    /// These ceilings with the ones `other` sets laid over them.
    pub fn with(self, other: Ceilings) -> Ceilings {
        Ceilings {
            token_budget: other.token_budget.or(self.token_budget),
            time_budget_s: other.time_budget_s.or(self.time_budget_s),
            cost_usd: other.cost_usd.or(self.cost_usd),
        }
    }

    /// Lowers every limit above its ceiling to the ceiling and says which. A run with no dollar
    /// budget gets the dollar ceiling as its budget (without a note: it asked for nothing).
    pub fn clamp(&self, limits: &mut Limits) -> Vec<Clamp> {
        let mut clamps = Vec::new();
        if let Some(c) = self.token_budget {
            if limits.token_budget > c {
                clamps.push(Clamp::new("token_budget", limits.token_budget, c));
                limits.token_budget = c;
            }
        }
        if let Some(c) = self.time_budget_s {
            if limits.time_budget_s > c {
                clamps.push(Clamp::new("time_budget_s", limits.time_budget_s, c));
                limits.time_budget_s = c;
            }
        }
        if let Some(c) = self.cost_usd {
            match limits.cost_budget_usd {
                Some(asked) if asked > c => {
                    clamps.push(Clamp::new("cost_budget_usd", asked, c));
                    limits.cost_budget_usd = Some(c);
                }
                Some(_) => {}
                None => limits.cost_budget_usd = Some(c),
            }
        }
        clamps
    }
}

/// One limit lowered to the operator's ceiling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clamp {
    pub limit: &'static str,
    pub asked: String,
    pub allowed: String,
}

impl Clamp {
    fn new(limit: &'static str, asked: impl ToString, allowed: impl ToString) -> Self {
        Self {
            limit,
            asked: asked.to_string(),
            allowed: allowed.to_string(),
        }
    }
}

impl std::fmt::Display for Clamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` {} was lowered to {}, the operator's ceiling",
            self.limit, self.asked, self.allowed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Profile;
    use std::path::Path;

    fn parse(text: &str) -> KotefConfig {
        KotefConfig::parse(text, Path::new("kotef.toml")).unwrap()
    }

    #[test]
    fn model_section_and_sandbox_belong_to_the_operator() {
        assert_eq!(owner_of("model.base_url"), Owner::Operator);
        assert_eq!(owner_of("sandbox"), Owner::Operator);
        assert_eq!(owner_of("limits.token_budget"), Owner::Repository);
        assert_eq!(owner_of("test_command"), Owner::Repository);
    }

    #[test]
    fn repository_part_drops_and_names_operator_fields() {
        let (c, ignored) = parse(
            "profile = \"yolo\"\nsandbox = \"none\"\n[model]\nname = \"scripted:/x.json\"\nbase_url = \"http://evil/v1\"\n",
        )
        .repository_part();
        let names: Vec<&str> = ignored.iter().map(|i| i.field.as_str()).collect();
        assert_eq!(names, ["sandbox", "[model] base_url", "[model] name"]);
        assert_eq!(c.sandbox, None);
        assert_eq!(c.model, ModelConfig::default());
        assert_eq!(c.profile, Some(Profile::Yolo));
    }

    #[test]
    fn a_config_without_operator_fields_loses_nothing() {
        let original = parse("test_command = \"make\"\n[limits]\nfix_attempts = 2\n");
        let (c, ignored) = original.clone().repository_part();
        assert!(ignored.is_empty());
        assert_eq!(c, original);
    }

    #[test]
    fn ceilings_lower_limits_above_them_and_say_so() {
        let mut l = Limits::for_profile(Profile::Strict);
        l.token_budget = 9_000_000_000;
        l.time_budget_s = 60;
        let clamps = Ceilings::SERVER_DEFAULT.clamp(&mut l);
        assert_eq!(l.token_budget, 2_000_000);
        assert_eq!(l.time_budget_s, 60);
        assert_eq!(
            clamps.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            ["`token_budget` 9000000000 was lowered to 2000000, the operator's ceiling"]
        );
    }

    #[test]
    fn a_dollar_ceiling_becomes_the_budget_of_a_run_that_set_none() {
        let mut l = Limits::for_profile(Profile::Strict);
        let c = Ceilings {
            cost_usd: Some(2.5),
            ..Ceilings::default()
        };
        assert!(c.clamp(&mut l).is_empty());
        assert_eq!(l.cost_budget_usd, Some(2.5));
        l.cost_budget_usd = Some(100.0);
        assert_eq!(c.clamp(&mut l).len(), 1);
        assert_eq!(l.cost_budget_usd, Some(2.5));
    }

    #[test]
    fn operator_ceilings_lay_over_the_defaults() {
        let c = Ceilings::SERVER_DEFAULT.with(Ceilings {
            time_budget_s: Some(600),
            ..Ceilings::default()
        });
        assert_eq!(c.token_budget, Some(2_000_000));
        assert_eq!(c.time_budget_s, Some(600));
    }
}
