//! How long a model's replies may be by default (`[model] max_tokens` overrides it), and
//! which models take OpenAI's reasoning-model parameters.
//!
//! A hosted model gets room for a `write_file` of a whole 200-line file (about 2,500 tokens
//! with its JSON escaping) and more: [`HOSTED_MAX_TOKENS`], or the model's own output limit
//! when that is lower, since a provider rejects a `max_tokens` above it. Any other model
//! served locally or self-hosted keeps [`LOCAL_MAX_TOKENS`]: a small model on a CPU that runs away
//! repeating one line holds the server for minutes, and the repair loop asks for short
//! replies anyway.

/// Completion tokens per reply for a known hosted model.
pub const HOSTED_MAX_TOKENS: u32 = 16_384;

/// Completion tokens per reply for a hosted model this table does not know: at least what
/// every current chat model can write, and room for a 200-line file.
pub const UNKNOWN_HOSTED_MAX_TOKENS: u32 = 4_096;

// A 200-line file in a write_file call is about 2,500 tokens with its JSON escaping.
const _: () = assert!(UNKNOWN_HOSTED_MAX_TOKENS > 2_500);

/// Completion tokens per reply for a local or self-hosted model.
pub const LOCAL_MAX_TOKENS: u32 = 1_024;

/// (family prefix, the family's output limit when below [`HOSTED_MAX_TOKENS`]), matched
/// against the normalised name (`.` as `-`, vendor prefix dropped), first match wins, wherever
/// the model is served. The limits are the providers' "max output" figures.
const FAMILIES: &[(&str, u32)] = &[
    ("claude-3-haiku", 4_096),
    ("claude-3-opus", 4_096),
    ("claude-3-5", 8_192),
    ("claude", HOSTED_MAX_TOKENS),
    ("gpt-4-turbo", 4_096),
    ("gpt-4o", HOSTED_MAX_TOKENS),
    ("gpt-4-1", HOSTED_MAX_TOKENS),
    ("gpt-5", HOSTED_MAX_TOKENS),
    ("o1", HOSTED_MAX_TOKENS),
    ("o3", HOSTED_MAX_TOKENS),
    ("o4", HOSTED_MAX_TOKENS),
];

/// The default completion-token cap of `model` (a name as sent, `gpt-4.1`,
/// `anthropic/claude-sonnet-4.5`); `local`: served locally or self-hosted.
pub fn default_max_tokens(model: &str, local: bool) -> u32 {
    let name = crate::cost::normalise(model);
    match FAMILIES.iter().find(|(prefix, _)| name.starts_with(prefix)) {
        // A known model is the same model behind a local proxy (LiteLLM, a gateway).
        Some((_, cap)) => *cap,
        None if local => LOCAL_MAX_TOKENS,
        None => UNKNOWN_HOSTED_MAX_TOKENS,
    }
}

/// Whether `model` is one of OpenAI's reasoning models named as OpenAI (and Azure) name
/// them (`gpt-5-mini`, `o4-mini`, not `openai/gpt-5-mini` through a gateway): those refuse
/// `max_tokens` (they take `max_completion_tokens`) and any `temperature` but the default.
pub fn openai_reasoning_model(model: &str) -> bool {
    let name = model.trim().to_ascii_lowercase();
    if name.contains('/') || name.starts_with("gpt-5-chat") {
        return false;
    }
    name.starts_with("gpt-5")
        || ["o1", "o3", "o4"]
            .iter()
            .any(|p| name == *p || name.starts_with(&format!("{p}-")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosted_models_get_room_for_a_whole_file_and_local_ones_stay_short() {
        for (model, local, cap) in [
            ("gpt-4.1", false, 16_384),
            ("gpt-4o-mini", false, 16_384),
            ("gpt-5-mini", false, 16_384),
            ("claude-sonnet-4-5", false, 16_384),
            ("anthropic/claude-sonnet-4.5", false, 16_384),
            ("claude-3-5-haiku-20241022", false, 8_192),
            ("claude-3-haiku-20240307", false, 4_096),
            ("gpt-4-turbo", false, 4_096),
            ("mistralai/devstral-medium", false, 4_096),
            ("gpt-4.1", true, 16_384),
            ("local", true, 1_024),
            ("qwen2.5-coder:7b", true, 1_024),
        ] {
            assert_eq!(default_max_tokens(model, local), cap, "{model}");
        }
    }

    #[test]
    fn openai_reasoning_models_by_name() {
        for yes in [
            "gpt-5",
            "gpt-5-mini",
            "gpt-5.4-nano",
            "o3",
            "o4-mini",
            "o1-2024-12-17",
        ] {
            assert!(openai_reasoning_model(yes), "{yes}");
        }
        for no in [
            "gpt-4.1",
            "gpt-4o",
            "openai/gpt-5-mini",
            "gpt-5-chat-latest",
            "o3x",
            "local",
        ] {
            assert!(!openai_reasoning_model(no), "{no}");
        }
    }
}
