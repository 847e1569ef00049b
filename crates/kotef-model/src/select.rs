//! Chooses the model from a spec string (`openai:NAME`, `anthropic:NAME`, `scripted:FILE`),
//! the `[model]` config section and the environment (`OPENAI_API_KEY`, `OPENAI_BASE_URL`,
//! `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`). Problems are `ModelError::Config` with a
//! message fit for the CLI, found before any call is made. `[model] temperature` and
//! `max_tokens` (low defaults) are sent by both real clients.

use crate::anthropic::{AnthropicModel, ANTHROPIC_DEFAULT_BASE_URL};
use crate::http::ClientOptions;
use crate::openai::{OpenAiModel, OPENAI_DEFAULT_BASE_URL};
use crate::retry::RetryPolicy;
use crate::scripted::ScriptedModel;
use crate::types::{Model, ModelError};
use kotef_core::config::ModelConfig;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The forms a spec may take, for error messages.
pub const SPEC_FORMS: &str = "openai:MODEL (OpenAI, or any OpenAI-compatible server via \
OPENAI_BASE_URL), anthropic:MODEL or scripted:FILE";

/// Default idle limit in seconds: how long a model call may show no progress (`crate::pace`).
pub const DEFAULT_TIMEOUT_S: u64 = 120;

/// Default sampling temperature (`[model] temperature`).
pub const DEFAULT_TEMPERATURE: f64 = 0.2;

/// Default completion-token cap per reply (`[model] max_tokens`).
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

/// `[model] temperature` and `max_tokens` with their defaults, checked.
fn sampling(cfg: &ModelConfig) -> Result<(f64, u32), ModelError> {
    let temperature = cfg.temperature.unwrap_or(DEFAULT_TEMPERATURE);
    if !(0.0..=2.0).contains(&temperature) {
        return Err(ModelError::Config(format!(
            "[model] temperature must be between 0 and 2, got {temperature}"
        )));
    }
    let max_tokens = cfg.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    if max_tokens == 0 {
        return Err(ModelError::Config(
            "[model] max_tokens must be at least 1".into(),
        ));
    }
    Ok((temperature, max_tokens))
}

/// A parsed `--model` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSpec {
    OpenAi(String),
    Anthropic(String),
    Scripted(PathBuf),
}

/// Parses `provider:rest`; the provider is case-insensitive, the rest must not be empty.
pub fn parse_spec(spec: &str) -> Result<ModelSpec, ModelError> {
    let spec = spec.trim();
    let Some((provider, rest)) = spec.split_once(':') else {
        return Err(ModelError::Config(format!(
            "model {spec:?} has no provider; use {SPEC_FORMS}"
        )));
    };
    let rest = rest.trim();
    let provider = provider.trim().to_ascii_lowercase();
    if rest.is_empty() && matches!(provider.as_str(), "openai" | "anthropic" | "scripted") {
        let what = if provider == "scripted" {
            "file"
        } else {
            "model name"
        };
        return Err(ModelError::Config(format!(
            "model {spec:?} lacks a {what}; use {SPEC_FORMS}"
        )));
    }
    match provider.as_str() {
        "openai" => Ok(ModelSpec::OpenAi(rest.to_string())),
        "anthropic" => Ok(ModelSpec::Anthropic(rest.to_string())),
        "scripted" => Ok(ModelSpec::Scripted(PathBuf::from(rest))),
        other => Err(ModelError::Config(format!(
            "unknown model provider {other:?} in {spec:?}; use {SPEC_FORMS}"
        ))),
    }
}

/// The model for `spec`, with the default retry timings (a 120 s retry window, or
/// cfg.retry_window_s; cfg.max_retries caps the attempts when set).
pub fn model_from_spec(
    spec: &str,
    cfg: &ModelConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Arc<dyn Model>, ModelError> {
    model_from_spec_with_policy(spec, cfg, env, RetryPolicy::default())
}

/// As [`model_from_spec`], with the retry timings of `policy` (its `max_retries` and retry
/// window are replaced by cfg.max_retries and cfg.retry_window_s when set). Tests use it to
/// retry in milliseconds.
pub fn model_from_spec_with_policy(
    spec: &str,
    cfg: &ModelConfig,
    env: &dyn Fn(&str) -> Option<String>,
    policy: RetryPolicy,
) -> Result<Arc<dyn Model>, ModelError> {
    let var = |name: &str| {
        env(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let cfg_base = cfg
        .base_url
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let (temperature, max_tokens) = sampling(cfg)?;
    let options = |model: String, base_var: &str, default_base: &str| {
        let custom_base = cfg_base.clone().or_else(|| var(base_var));
        let timeout_s = cfg.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
        if timeout_s == 0 {
            return Err(ModelError::Config(
                "[model] timeout_s must be at least 1".into(),
            ));
        }
        let mut retry = policy;
        if let Some(n) = cfg.max_retries {
            retry = retry.with_max_retries(n);
        }
        if let Some(s) = cfg.retry_window_s {
            retry = retry.with_retry_window(Duration::from_secs(s));
        }
        let custom = custom_base.is_some();
        let opts = ClientOptions::new(model, custom_base.unwrap_or_else(|| default_base.into()))
            .with_timeout(Duration::from_secs(timeout_s))
            .with_retry(retry)
            .with_max_tokens(max_tokens);
        Ok((opts, custom))
    };
    match parse_spec(spec)? {
        ModelSpec::OpenAi(name) => {
            let (mut opts, custom_base) =
                options(name, "OPENAI_BASE_URL", OPENAI_DEFAULT_BASE_URL)?;
            match var("OPENAI_API_KEY") {
                Some(k) => opts.api_key = Some(k),
                // A custom OpenAI-compatible server (Ollama, llama.cpp) may need no key.
                None if custom_base => {}
                None => {
                    return Err(ModelError::Config(
                        "OPENAI_API_KEY is not set; export it, or point OPENAI_BASE_URL (or \
                         [model] base_url) at an OpenAI-compatible server that needs no key"
                            .into(),
                    ))
                }
            }
            Ok(Arc::new(
                OpenAiModel::new(opts)?.with_temperature(temperature),
            ))
        }
        ModelSpec::Anthropic(name) => {
            let (mut opts, _) = options(name, "ANTHROPIC_BASE_URL", ANTHROPIC_DEFAULT_BASE_URL)?;
            let Some(k) = var("ANTHROPIC_API_KEY") else {
                return Err(ModelError::Config(
                    "ANTHROPIC_API_KEY is not set; export it to use an anthropic: model".into(),
                ));
            };
            opts.api_key = Some(k);
            Ok(Arc::new(
                AnthropicModel::new(opts)?.with_temperature(temperature),
            ))
        }
        ModelSpec::Scripted(path) => ScriptedModel::from_scenario_file(&path)
            .map(|m| Arc::new(m) as Arc<dyn Model>)
            .map_err(|e| ModelError::Config(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_forms() {
        assert_eq!(
            parse_spec("openai:gpt-4o"),
            Ok(ModelSpec::OpenAi("gpt-4o".into()))
        );
        assert_eq!(
            parse_spec(" Anthropic:claude-sonnet-4 "),
            Ok(ModelSpec::Anthropic("claude-sonnet-4".into()))
        );
        assert_eq!(
            parse_spec("openai:llama3.1:8b"),
            Ok(ModelSpec::OpenAi("llama3.1:8b".into()))
        );
        assert_eq!(
            parse_spec("scripted:s/a.json"),
            Ok(ModelSpec::Scripted("s/a.json".into()))
        );
        for bad in ["gpt-4o", "openai:", "scripted: ", "gemini:pro", ""] {
            let e = parse_spec(bad).unwrap_err();
            assert!(
                matches!(&e, ModelError::Config(m) if m.contains("anthropic:MODEL")),
                "{e}"
            );
        }
        assert!(parse_spec("gemini:pro")
            .unwrap_err()
            .to_string()
            .contains("\"gemini\""));
    }
}
