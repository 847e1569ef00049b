//! The built-in list prices: USD per million input / output tokens, standard tier, no
//! caching, batch or long-context surcharges, read from the providers' own pages (and the
//! pages that quote them, where the provider's page was not readable) as of
//! [`PRICE_TABLE_DATE`]. Each block says where its figures come from. A model missing here
//! is priced by `[model] price_*_per_mtok` or the `KOTEF_PRICE_PER_MTOK` variable (the
//! Action's `price-per-mtok` input); a dollar budget without a price falls back to tokens.

/// When the table was last checked against the sources named below.
pub const PRICE_TABLE_DATE: &str = "2026-11";

/// (model key, input, output). Keys are matched after [`super::cost::normalise`]: lower case,
/// `.` read as `-`, provider prefixes and OpenRouter's `vendor/` dropped.
pub(crate) const PRICES: &[(&str, f64, f64)] = &[
    // OpenAI, https://developers.openai.com/api/docs/pricing: GPT-5.5 / 5.4 family as quoted
    // from that page in June 2026 (morphllm.com/openai-api-pricing) and March 2026 (adk-model
    // 0.6 `openai::pricing`); GPT-5, 4.1, 4o and o-series as quoted in March 2026
    // (deploybase.ai/articles/openai-pricing, "data from OpenAI pricing page").
    ("gpt-5.5", 5.00, 30.00),
    ("gpt-5.5-pro", 30.00, 180.00),
    ("gpt-5.4", 2.50, 15.00),
    ("gpt-5.4-mini", 0.75, 4.50),
    ("gpt-5.4-nano", 0.20, 1.25),
    ("gpt-5.4-pro", 30.00, 180.00),
    ("gpt-5.1", 1.25, 10.00),
    ("gpt-5.1-codex", 1.25, 10.00),
    ("gpt-5-codex", 1.25, 10.00),
    ("gpt-5-pro", 15.00, 120.00),
    ("gpt-5", 1.25, 10.00),
    ("gpt-5-mini", 0.25, 2.00),
    ("gpt-5-nano", 0.05, 0.40),
    ("gpt-4.1", 2.00, 8.00),
    ("gpt-4.1-mini", 0.40, 1.60),
    ("gpt-4.1-nano", 0.10, 0.40),
    ("gpt-4o", 2.50, 10.00),
    ("gpt-4o-mini", 0.15, 0.60),
    ("gpt-4-turbo", 10.00, 30.00),
    ("o3", 2.00, 8.00),
    ("o3-mini", 1.10, 4.40),
    ("o4-mini", 1.10, 4.40),
    // Anthropic, https://platform.claude.com/docs/en/models (the lineup table, read
    // 2026-11: Fable 5.1 $10/$50, Opus 5.5 $4/$20, Sonnet 5.5 $2/$10, Haiku 5.5 from
    // $0.10/$0.50 for prompts up to 100k tokens) and each model's overview page (Opus 5
    // $5/$25, Sonnet 5 $2/$10, Sonnet 4.5 $3/$15); Opus 4.5 to 4.8 $5/$25 and Opus 4 / 4.1
    // $15/$75 from .../about-claude/pricing ("Model pricing", quoted by synaps 0.10's
    // `pricing` module, verified 2026-10); Haiku 4.5 $1/$5, Haiku 3.5 $0.80/$4, Haiku 3
    // $0.25/$1.25 from the same pricing page (2025-11 copy at aiwiki.dev).
    ("claude-fable-5-1", 10.00, 50.00),
    ("claude-fable-5", 10.00, 50.00),
    ("claude-opus-5-5", 4.00, 20.00),
    ("claude-opus-5", 5.00, 25.00),
    ("claude-sonnet-5-5", 2.00, 10.00),
    ("claude-sonnet-5", 2.00, 10.00),
    ("claude-haiku-5-5", 0.10, 0.50),
    ("claude-opus-4-8", 5.00, 25.00),
    ("claude-opus-4-7", 5.00, 25.00),
    ("claude-opus-4-6", 5.00, 25.00),
    ("claude-opus-4-5", 5.00, 25.00),
    ("claude-opus-4-1", 15.00, 75.00),
    ("claude-opus-4-0", 15.00, 75.00),
    ("claude-opus-4", 15.00, 75.00),
    ("claude-sonnet-4-6", 3.00, 15.00),
    ("claude-sonnet-4-5", 3.00, 15.00),
    ("claude-sonnet-4-0", 3.00, 15.00),
    ("claude-sonnet-4", 3.00, 15.00),
    ("claude-haiku-4-5", 1.00, 5.00),
    ("claude-3-7-sonnet", 3.00, 15.00),
    ("claude-3-5-sonnet", 3.00, 15.00),
    ("claude-3-5-haiku", 0.80, 4.00),
    ("claude-3-opus", 15.00, 75.00),
    ("claude-3-haiku", 0.25, 1.25),
    // OpenRouter's names for the same models (`anthropic/claude-sonnet-4.5`,
    // `anthropic/claude-3.7-sonnet`, `openai/gpt-4.1`) reach the keys above once the vendor
    // prefix is dropped; OpenRouter passes the providers' list prices through
    // (https://openrouter.ai/anthropic/claude-3.5-sonnet: "$3/M input tokens, $15/M output").
    // Its `:free` variants cost nothing (see `cost::free_variant`).
];
