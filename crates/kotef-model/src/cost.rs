//! Cost estimates in USD: the prices of the `[model]` config section when set, else a small
//! built-in table of list prices of well-known models; unknown models have no cost.

use crate::types::Usage;
use kotef_core::config::ModelConfig;

/// When the built-in table's prices were taken from the providers' public price lists.
pub const PRICE_TABLE_DATE: &str = "2025-08";

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub prompt_per_mtok: f64,
    pub completion_per_mtok: f64,
}

/// List prices (USD per million input / output tokens, standard tier, no caching or batch
/// discounts) as of [`PRICE_TABLE_DATE`].
const PRICES: &[(&str, f64, f64)] = &[
    ("gpt-4o", 2.50, 10.00),
    ("gpt-4o-mini", 0.15, 0.60),
    ("gpt-4.1", 2.00, 8.00),
    ("gpt-4.1-mini", 0.40, 1.60),
    ("gpt-4.1-nano", 0.10, 0.40),
    ("gpt-4-turbo", 10.00, 30.00),
    ("gpt-5", 1.25, 10.00),
    ("gpt-5-mini", 0.25, 2.00),
    ("gpt-5-nano", 0.05, 0.40),
    ("o3", 2.00, 8.00),
    ("o3-mini", 1.10, 4.40),
    ("o4-mini", 1.10, 4.40),
    ("claude-3-haiku", 0.25, 1.25),
    ("claude-3-opus", 15.00, 75.00),
    ("claude-3-5-haiku", 0.80, 4.00),
    ("claude-3-5-sonnet", 3.00, 15.00),
    ("claude-3-7-sonnet", 3.00, 15.00),
    ("claude-sonnet-4", 3.00, 15.00),
    ("claude-opus-4", 15.00, 75.00),
    ("claude-opus-4-1", 15.00, 75.00),
];

/// The cost of `usage` for `model_name` (`gpt-4o`, `openai:gpt-4o`, `openai/gpt-4o`,
/// `claude-3.5-sonnet`, `claude-3-5-sonnet-20241022`, ...). Each price comes from `cfg` when
/// set there, else from the built-in table; `None` when a needed price is unknown.
pub fn cost_usd(usage: Usage, cfg: &ModelConfig, model_name: &str) -> Option<f64> {
    let table = table_price(model_name);
    let prompt = cfg
        .price_prompt_per_mtok
        .or(table.map(|p| p.prompt_per_mtok))?;
    let completion = cfg
        .price_completion_per_mtok
        .or(table.map(|p| p.completion_per_mtok))?;
    let cost = (usage.prompt_tokens as f64 * prompt + usage.completion_tokens as f64 * completion)
        / 1_000_000.0;
    cost.is_finite().then_some(cost)
}

/// The built-in price of a model: its name matches a table entry exactly, or the entry
/// followed by a dated or `-latest` suffix (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`).
/// A provider prefix (`openai:`, `anthropic/`) is ignored and `.` reads as `-`.
pub fn table_price(model_name: &str) -> Option<Price> {
    let name = normalise(model_name);
    PRICES
        .iter()
        .find(|(key, _, _)| {
            let key = normalise(key);
            match name.strip_prefix(key.as_str()) {
                Some("") | Some("-latest") => true,
                Some(rest) => rest
                    .strip_prefix('-')
                    .is_some_and(|r| r.chars().take_while(char::is_ascii_digit).count() >= 4),
                None => false,
            }
        })
        .map(|(_, p, c)| Price {
            prompt_per_mtok: *p,
            completion_per_mtok: *c,
        })
}

fn normalise(name: &str) -> String {
    let name = name.trim();
    let name = ["openai:", "anthropic:"]
        .iter()
        .find_map(|p| name.strip_prefix(p))
        .unwrap_or(name);
    let name = name.rsplit('/').next().unwrap_or(name);
    name.to_ascii_lowercase().replace('.', "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(p: u64, c: u64) -> Usage {
        Usage {
            prompt_tokens: p,
            completion_tokens: c,
        }
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    #[test]
    fn table_prices_with_suffixes_and_prefixes() {
        let cfg = ModelConfig::default();
        assert!(close(
            cost_usd(usage(1_000_000, 1_000_000), &cfg, "gpt-4o"),
            12.5
        ));
        assert!(close(
            cost_usd(usage(1_000_000, 0), &cfg, "openai:gpt-4o-2024-08-06"),
            2.5
        ));
        assert!(close(
            cost_usd(usage(0, 1_000_000), &cfg, "gpt-4o-mini"),
            0.6
        ));
        assert!(close(
            cost_usd(usage(1_000_000, 0), &cfg, "openai/gpt-4.1-mini"),
            0.4
        ));
        assert!(close(
            cost_usd(
                usage(2_000_000, 1_000_000),
                &cfg,
                "claude-3-5-sonnet-20241022"
            ),
            21.0
        ));
        assert!(close(
            cost_usd(usage(1_000_000, 0), &cfg, "anthropic/claude-3.5-sonnet"),
            3.0
        ));
        assert!(close(
            cost_usd(usage(0, 1_000_000), &cfg, "claude-sonnet-4-20250514"),
            15.0
        ));
        assert!(close(
            cost_usd(usage(1_000_000, 0), &cfg, "claude-3-7-sonnet-latest"),
            3.0
        ));
    }

    #[test]
    fn unknown_and_lookalike_models_have_no_price() {
        let cfg = ModelConfig::default();
        assert_eq!(cost_usd(usage(10, 10), &cfg, "llama3.1:8b"), None);
        // A newer model whose name starts like a known one is not priced as that one.
        assert_eq!(table_price("claude-opus-4-5-20251101"), None);
        assert_eq!(table_price("gpt-4o-audio-preview"), None);
        assert_eq!(table_price("o3-pro"), None);
    }

    #[test]
    fn config_prices_win() {
        let cfg = ModelConfig {
            price_prompt_per_mtok: Some(1.0),
            price_completion_per_mtok: Some(2.0),
            ..Default::default()
        };
        assert!(close(
            cost_usd(usage(1_000_000, 1_000_000), &cfg, "gpt-4o"),
            3.0
        ));
        assert!(close(
            cost_usd(usage(500_000, 0), &cfg, "my-local-model"),
            0.5
        ));
        // Only one price set: the other from the table, or no cost when the model is unknown.
        let half = ModelConfig {
            price_prompt_per_mtok: Some(1.0),
            ..Default::default()
        };
        assert!(close(
            cost_usd(usage(1_000_000, 1_000_000), &half, "gpt-4o"),
            11.0
        ));
        assert_eq!(cost_usd(usage(1, 1), &half, "my-local-model"), None);
        assert!(close(cost_usd(Usage::default(), &cfg, "x"), 0.0));
    }
}
