//! Asking an OpenAI-compatible server what it is before any reply has said so: llama.cpp
//! names itself in its model list (`GET {base}/models`, each model `owned_by: "llamacpp"`),
//! so a caller can know before its first call that the server continues a reply begun for it
//! ([`crate::Model::continues_replies`]). One short, capped request; any failure means "not
//! known", never an error.

use serde_json::Value;
use std::time::Duration;

/// How long the question may take: the list is answered at once, even by a busy server.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// The most bytes of the list read (a gateway may list thousands of models).
pub const MAX_BYTES: usize = 256 * 1024;

/// `{base}/models` for a chat endpoint `{base}/chat/completions`.
pub fn models_url(chat_endpoint: &str) -> Option<String> {
    chat_endpoint
        .strip_suffix("/chat/completions")
        .map(|base| format!("{base}/models"))
}

/// Whether a model list names llama.cpp as the owner of a model it serves.
pub fn lists_llama_cpp(body: &[u8]) -> bool {
    let Ok(list) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    list["data"].as_array().is_some_and(|models| {
        models
            .iter()
            .any(|m| m["owned_by"].as_str() == Some("llamacpp"))
    })
}

/// Asks `url` for its model list (with `api_key` as a bearer token, as the chat calls send
/// it) and says whether it names llama.cpp; a failure, a refusal or a list longer than
/// [`MAX_BYTES`] says no.
pub async fn names_llama_cpp(client: &reqwest::Client, url: &str, api_key: Option<&str>) -> bool {
    let mut request = client.get(url).timeout(TIMEOUT);
    if let Some(k) = api_key {
        request = request.bearer_auth(k);
    }
    let Ok(mut response) = request.send().await else {
        return false;
    };
    if !response.status().is_success() {
        return false;
    }
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) if body.len() + chunk.len() <= MAX_BYTES => body.extend(&chunk[..]),
            Ok(None) => break,
            Ok(Some(_)) | Err(_) => return false,
        }
    }
    lists_llama_cpp(&body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_list_is_beside_the_chat_endpoint() {
        assert_eq!(
            models_url("http://127.0.0.1:8080/v1/chat/completions").as_deref(),
            Some("http://127.0.0.1:8080/v1/models")
        );
    }

    #[test]
    fn a_list_owned_by_llamacpp_names_llama_cpp() {
        let body =
            br#"{"object":"list","data":[{"id":"qwen","object":"model","owned_by":"llamacpp"}]}"#;
        assert!(lists_llama_cpp(body));
    }

    #[test]
    fn another_servers_list_or_a_malformed_body_does_not() {
        let ollama =
            br#"{"object":"list","data":[{"id":"qwen","object":"model","owned_by":"library"}]}"#;
        assert!(!lists_llama_cpp(ollama));
        assert!(!lists_llama_cpp(b"<html>not found</html>"));
        assert!(!lists_llama_cpp(br#"{"data":"llamacpp"}"#));
    }
}
