//! Choosing a model from a spec, the config section and the environment: each spec form,
//! missing keys, base URL precedence (config over env), keyless OpenAI-compatible servers,
//! `max_retries` from the config, unknown providers.

mod common;

use common::{fast_policy, json_request, openai_ok, Mock, Reply};
use kotef_core::config::ModelConfig;
use kotef_model::{model_from_spec, model_from_spec_with_policy, Model, ModelError};
use serde_json::json;
use std::collections::HashMap;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k: &str| map.get(k).cloned()
}

fn config_error(r: Result<std::sync::Arc<dyn Model>, ModelError>) -> String {
    match r {
        Err(ModelError::Config(m)) => m,
        Err(e) => panic!("not a config error: {e:?}"),
        Ok(m) => panic!("unexpectedly built {}", m.name()),
    }
}

#[test]
fn openai_and_anthropic_with_keys() {
    let e = env(&[
        ("OPENAI_API_KEY", "sk-aaaaaaaa"),
        ("ANTHROPIC_API_KEY", "sk-ant-bbbbbbbb"),
    ]);
    let cfg = ModelConfig::default();
    assert_eq!(
        model_from_spec("openai:gpt-4o", &cfg, &e).unwrap().name(),
        "openai:gpt-4o"
    );
    assert_eq!(
        model_from_spec("anthropic:claude-sonnet-4-20250514", &cfg, &e)
            .unwrap()
            .name(),
        "anthropic:claude-sonnet-4-20250514"
    );
}

#[test]
fn missing_keys_are_named() {
    let cfg = ModelConfig::default();
    let m = config_error(model_from_spec("openai:gpt-4o", &cfg, &env(&[])));
    assert!(m.contains("OPENAI_API_KEY is not set"), "{m}");
    let m = config_error(model_from_spec(
        "openai:gpt-4o",
        &cfg,
        &env(&[("OPENAI_API_KEY", "  ")]),
    ));
    assert!(m.contains("OPENAI_API_KEY"), "{m}");
    let m = config_error(model_from_spec(
        "anthropic:claude-sonnet-4",
        &cfg,
        &env(&[("OPENAI_API_KEY", "sk-aaaaaaaa")]),
    ));
    assert!(m.contains("ANTHROPIC_API_KEY is not set"), "{m}");
}

#[test]
fn unknown_provider_lists_the_valid_forms() {
    let cfg = ModelConfig::default();
    for spec in ["gemini:pro", "gpt-4o", "openai:"] {
        let m = config_error(model_from_spec(spec, &cfg, &env(&[])));
        assert!(
            m.contains("openai:MODEL")
                && m.contains("anthropic:MODEL")
                && m.contains("scripted:FILE"),
            "{m}"
        );
    }
}

#[test]
fn bad_config_values() {
    let e = env(&[("OPENAI_API_KEY", "sk-aaaaaaaa")]);
    let cfg = ModelConfig {
        timeout_s: Some(0),
        ..Default::default()
    };
    assert!(config_error(model_from_spec("openai:gpt-4o", &cfg, &e)).contains("timeout_s"));
    let cfg = ModelConfig {
        base_url: Some("localhost:11434".into()),
        ..Default::default()
    };
    assert!(config_error(model_from_spec("openai:gpt-4o", &cfg, &e)).contains("base URL"));
}

#[tokio::test]
async fn keyless_openai_compatible_server_via_env_base_url() {
    let mock = Mock::start(vec![Reply::json(
        200,
        openai_ok(json!({"content": "{}"}), "stop", None),
    )])
    .await;
    let base = format!("{}/v1", mock.url);
    let m = model_from_spec(
        "openai:qwen2.5-coder",
        &ModelConfig::default(),
        &env(&[("OPENAI_BASE_URL", &base)]),
    )
    .unwrap();
    m.complete(&json_request()).await.unwrap();
    let seen = mock.requests();
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert!(seen[0].headers.get("authorization").is_none());
}

#[tokio::test]
async fn config_base_url_wins_over_env() {
    let mock = Mock::start(vec![Reply::json(
        200,
        openai_ok(json!({"content": "{}"}), "stop", None),
    )])
    .await;
    let cfg = ModelConfig {
        base_url: Some(format!("{}/v1", mock.url)),
        ..Default::default()
    };
    let m = model_from_spec(
        "openai:gpt-4o",
        &cfg,
        &env(&[
            ("OPENAI_BASE_URL", "http://127.0.0.1:1/v1"),
            ("OPENAI_API_KEY", "sk-cccccccc"),
        ]),
    )
    .unwrap();
    m.complete(&json_request()).await.unwrap();
    let seen = mock.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].headers.get("authorization").unwrap(),
        "Bearer sk-cccccccc"
    );
}

#[tokio::test]
async fn anthropic_env_base_url_and_key() {
    let mock = Mock::start(vec![Reply::json(
        200,
        json!({"content": [{"type": "text", "text": "{}"}], "usage": {"input_tokens": 1, "output_tokens": 1}}),
    )])
    .await;
    let m = model_from_spec(
        "anthropic:claude-3-5-haiku-latest",
        &ModelConfig::default(),
        &env(&[
            ("ANTHROPIC_BASE_URL", &mock.url),
            ("ANTHROPIC_API_KEY", "sk-ant-dddddddd"),
        ]),
    )
    .unwrap();
    m.complete(&json_request()).await.unwrap();
    let seen = mock.requests();
    assert_eq!(seen[0].path, "/v1/messages");
    assert_eq!(seen[0].headers.get("x-api-key").unwrap(), "sk-ant-dddddddd");
}

#[tokio::test]
async fn max_retries_comes_from_the_config() {
    let mock = Mock::start(vec![Reply::raw(503, "unavailable")]).await;
    let cfg = ModelConfig {
        base_url: Some(format!("{}/v1", mock.url)),
        max_retries: Some(1),
        ..Default::default()
    };
    let m = model_from_spec_with_policy(
        "openai:gpt-4o",
        &cfg,
        &env(&[("OPENAI_API_KEY", "sk-eeeeeeee")]),
        fast_policy(9),
    )
    .unwrap();
    let err = m.complete(&json_request()).await.unwrap_err();
    assert!(
        matches!(err, ModelError::Server { status: 503, .. }),
        "{err}"
    );
    assert_eq!(mock.count(), 2);
    assert_eq!(m.take_failed_attempts().len(), 1);
}

#[tokio::test]
async fn scripted_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scenario.json");
    std::fs::write(
        &path,
        json!({"name": "x", "model": {"planner": [{"content": "{\"next\":\"done\"}"}]}})
            .to_string(),
    )
    .unwrap();
    let m = model_from_spec(
        &format!("scripted:{}", path.display()),
        &ModelConfig::default(),
        &env(&[]),
    )
    .unwrap();
    assert_eq!(m.name(), "scripted");
    assert_eq!(
        m.complete(&json_request()).await.unwrap().content,
        "{\"next\":\"done\"}"
    );

    let missing = dir.path().join("nope.json");
    let msg = config_error(model_from_spec(
        &format!("scripted:{}", missing.display()),
        &ModelConfig::default(),
        &env(&[]),
    ));
    assert!(msg.contains("nope.json"), "{msg}");
    std::fs::write(&path, "{not json").unwrap();
    let msg = config_error(model_from_spec(
        &format!("scripted:{}", path.display()),
        &ModelConfig::default(),
        &env(&[]),
    ));
    assert!(msg.contains("invalid scripted model"), "{msg}");
}
