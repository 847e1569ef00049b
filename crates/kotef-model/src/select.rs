//! Chooses the model from a spec string (`openai:NAME`, `anthropic:NAME`, `scripted:FILE`,
//! `local`), the `[model]` config section and the environment (`OPENAI_API_KEY`,
//! `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `KOTEF_LOCAL_MODEL_URL`).
//! Problems are `ModelError::Config` with a message fit for the CLI, found before any call
//! is made. `[model] temperature` and `max_tokens` (defaults by model: [`crate::replies`])
//! are sent by both real clients.

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
OPENAI_BASE_URL), anthropic:MODEL, local (the bundled model of scripts/local-model.sh) or \
scripted:FILE";

/// Default idle limit in seconds: how long a model call may show no progress (`crate::pace`).
pub const DEFAULT_TIMEOUT_S: u64 = 120;

/// Default seconds one call of the bundled local model may take: a 1.5B model on a 2-core
/// runner reads a 10k-token prompt and writes 1,024 tokens in about 3 minutes.
pub const LOCAL_TIMEOUT_S: u64 = 600;

/// Where `local` finds the bundled model when `KOTEF_LOCAL_MODEL_URL` and `[model] base_url`
/// are unset: scripts/local-model.sh's default port.
pub const LOCAL_DEFAULT_BASE_URL: &str = "http://127.0.0.1:18080/v1";

/// Default sampling temperature (`[model] temperature`).
pub const DEFAULT_TEMPERATURE: f64 = 0.2;

/// `[model] temperature` and `max_tokens` (default by model) with their defaults, checked.
fn sampling(cfg: &ModelConfig, default_max_tokens: u32) -> Result<(f64, u32), ModelError> {
    let temperature = cfg.temperature.unwrap_or(DEFAULT_TEMPERATURE);
    if !(0.0..=2.0).contains(&temperature) {
        return Err(ModelError::Config(format!(
            "[model] temperature must be between 0 and 2, got {temperature}"
        )));
    }
    let max_tokens = cfg.max_tokens.unwrap_or(default_max_tokens);
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
    /// The bundled local model (`local`): the OpenAI-compatible server scripts/local-model.sh
    /// starts, at `KOTEF_LOCAL_MODEL_URL`; free, no key, CPU-sized budgets.
    Local,
}

/// Parses `provider:rest`; the provider is case-insensitive, the rest must not be empty.
pub fn parse_spec(spec: &str) -> Result<ModelSpec, ModelError> {
    let spec = spec.trim();
    if spec.eq_ignore_ascii_case("local") {
        return Ok(ModelSpec::Local);
    }
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
    // (options, whether the base URL is the operator's own, temperature)
    let options = |model: String, base_var: &str, default_base: &str, timeout: u64| {
        let custom_base = cfg_base.clone().or_else(|| var(base_var));
        let timeout_s = cfg.timeout_s.unwrap_or(timeout);
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
        let base = custom_base.unwrap_or_else(|| default_base.into());
        let local = crate::http::is_local_url(&base) || model == "local";
        let (temperature, max_tokens) =
            sampling(cfg, crate::replies::default_max_tokens(&model, local))?;
        let opts = ClientOptions::new(model, base)
            .with_timeout(Duration::from_secs(timeout_s))
            .with_retry(retry)
            .with_max_tokens(max_tokens);
        Ok((opts, custom, temperature))
    };
    match parse_spec(spec)? {
        ModelSpec::OpenAi(name) => {
            let (mut opts, custom_base, temperature) = options(
                name,
                "OPENAI_BASE_URL",
                OPENAI_DEFAULT_BASE_URL,
                DEFAULT_TIMEOUT_S,
            )?;
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
        ModelSpec::Local => {
            // No key: the bundled server needs none, and no provider key is sent to it.
            let (opts, _, temperature) = options(
                "local".into(),
                "KOTEF_LOCAL_MODEL_URL",
                LOCAL_DEFAULT_BASE_URL,
                LOCAL_TIMEOUT_S,
            )?;
            Ok(Arc::new(
                OpenAiModel::new(opts)?.with_temperature(temperature),
            ))
        }
        ModelSpec::Anthropic(name) => {
            let (mut opts, _, temperature) = options(
                name,
                "ANTHROPIC_BASE_URL",
                ANTHROPIC_DEFAULT_BASE_URL,
                DEFAULT_TIMEOUT_S,
            )?;
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
        assert_eq!(parse_spec(" Local "), Ok(ModelSpec::Local));
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

    #[test]
    fn local_needs_no_key_and_finds_the_bundled_server() {
        let url = |k: &str| (k == "KOTEF_LOCAL_MODEL_URL").then(|| "http://127.0.0.1:9/v1".into());
        let m = model_from_spec("local", &ModelConfig::default(), &url).unwrap();
        assert_eq!(m.name(), "openai:local");
        assert!(m.local_endpoint());
        // Without the variable: scripts/local-model.sh's default port.
        let m = model_from_spec("local", &ModelConfig::default(), &|_| None).unwrap();
        assert!(m.local_endpoint());
    }
}
