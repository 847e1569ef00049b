//! Cost estimates in USD. A model's price comes from, in order: the operator's
//! `KOTEF_PRICE_PER_MTOK` (the Action's `price-per-mtok`), the `[model]` config section, the
//! built-in table ([`crate::prices`]), an OpenRouter `:free` variant ($0), and a local or
//! self-hosted endpoint (`local`, `openai:local`, a loopback or private base URL: $0). Any
//! other model has no price: a dollar budget then falls back to tokens (the run's rules).

use crate::types::Usage;
use kotef_core::config::ModelConfig;

pub use crate::prices::PRICE_TABLE_DATE;

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub prompt_per_mtok: f64,
    pub completion_per_mtok: f64,
}

impl Price {
    /// Nothing to pay.
    pub const FREE: Price = Price {
        prompt_per_mtok: 0.0,
        completion_per_mtok: 0.0,
    };

    /// `"IN,OUT"` in USD per million input / output tokens (`"3,15"`, `"0.15, 0.6"`), as the
    /// `KOTEF_PRICE_PER_MTOK` variable and the Action's `price-per-mtok` input take it.
    pub fn parse(text: &str) -> Result<Price, String> {
        let bad = || {
            format!(
                "price-per-mtok `{text}`: expected two non-negative numbers of dollars per \
                 million input and output tokens, like \"3,15\""
            )
        };
        let (a, b) = text.split_once(',').ok_or_else(bad)?;
        let num = |s: &str| {
            s.trim()
                .trim_start_matches('$')
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
        };
        match (num(a), num(b)) {
            (Some(p), Some(c)) => Ok(Price {
                prompt_per_mtok: p,
                completion_per_mtok: c,
            }),
            _ => Err(bad()),
        }
    }

    /// The cost of `usage` at this price; `None` if it does not come out a finite number.
    pub fn cost(&self, usage: Usage) -> Option<f64> {
        let cost = (usage.prompt_tokens as f64 * self.prompt_per_mtok
            + usage.completion_tokens as f64 * self.completion_per_mtok)
            / 1_000_000.0;
        cost.is_finite().then_some(cost)
    }
}

/// Where a model's price came from, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceSource {
    /// `KOTEF_PRICE_PER_MTOK` (the Action's `price-per-mtok`).
    Operator,
    /// `[model] price_prompt_per_mtok` / `price_completion_per_mtok` (the table fills a
    /// price left unset).
    Config,
    /// The built-in table of list prices.
    Table,
    /// An OpenRouter `:free` variant.
    Free,
    /// A local or self-hosted endpoint, unpriced: $0.
    Local,
}

/// The price of `model_name` (see the module's order), or `None` when nothing prices it.
/// `local_endpoint`: the model is served locally or self-hosted (see
/// [`crate::http::is_local_url`]).
pub fn price_of(
    operator: Option<Price>,
    cfg: &ModelConfig,
    model_name: &str,
    local_endpoint: bool,
) -> Option<(Price, PriceSource)> {
    if let Some(p) = operator {
        return Some((p, PriceSource::Operator));
    }
    let table = table_price(model_name);
    if cfg.price_prompt_per_mtok.is_some() || cfg.price_completion_per_mtok.is_some() {
        let fallback = table.or(local_endpoint.then_some(Price::FREE));
        let prompt = cfg
            .price_prompt_per_mtok
            .or(fallback.map(|p| p.prompt_per_mtok))?;
        let completion = cfg
            .price_completion_per_mtok
            .or(fallback.map(|p| p.completion_per_mtok))?;
        return Some((
            Price {
                prompt_per_mtok: prompt,
                completion_per_mtok: completion,
            },
            PriceSource::Config,
        ));
    }
    if let Some(p) = table {
        return Some((p, PriceSource::Table));
    }
    if free_variant(model_name) {
        return Some((Price::FREE, PriceSource::Free));
    }
    let local_name = normalise(model_name) == "local";
    (local_endpoint || local_name).then_some((Price::FREE, PriceSource::Local))
}

/// The cost of `usage` for `model_name` with `cfg`'s prices or the table's (no operator price,
/// not a local endpoint); `None` when a needed price is unknown.
pub fn cost_usd(usage: Usage, cfg: &ModelConfig, model_name: &str) -> Option<f64> {
    price_of(None, cfg, model_name, false)?.0.cost(usage)
}

/// An OpenRouter `:free` variant (`meta-llama/llama-3.3-70b-instruct:free`).
pub fn free_variant(model_name: &str) -> bool {
    model_name.trim().to_ascii_lowercase().ends_with(":free")
}

/// The built-in price of a model: its name matches a table entry exactly, or the entry
/// followed by a dated or `-latest` suffix (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`).
/// A provider prefix (`openai:`, `anthropic/`, `openrouter/anthropic/`) and an OpenRouter
/// variant (`:thinking`, `:beta`) are ignored, and `.` reads as `-`.
pub fn table_price(model_name: &str) -> Option<Price> {
    let name = normalise(model_name);
    crate::prices::PRICES
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

/// A model name as the table keys are written.
pub(crate) fn normalise(name: &str) -> String {
    let name = name.trim();
    let name = ["openai:", "anthropic:"]
        .iter()
        .find_map(|p| name.strip_prefix(p))
        .unwrap_or(name);
    let name = name.rsplit('/').next().unwrap_or(name);
    // OpenRouter's variants (`:thinking`, `:beta`, `:free`) after the name.
    let name = name.split(':').next().unwrap_or(name);
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
        // A model whose name starts like a known one is not priced as that one.
        assert_eq!(table_price("claude-opus-4-9-20271101"), None);
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

    #[test]
    fn the_readme_and_2026_models_are_priced() {
        for (name, p, c) in [
            ("anthropic:claude-sonnet-4-5", 3.0, 15.0),
            ("anthropic:claude-sonnet-4-5-20250929", 3.0, 15.0),
            ("anthropic:claude-sonnet-4-0", 3.0, 15.0),
            ("anthropic:claude-opus-4-1", 15.0, 75.0),
            ("anthropic:claude-opus-4-5", 5.0, 25.0),
            ("anthropic:claude-haiku-4-5", 1.0, 5.0),
            ("anthropic:claude-sonnet-5-5", 2.0, 10.0),
            ("openai:gpt-5-mini", 0.25, 2.0),
            ("openai:gpt-5.4", 2.5, 15.0),
            ("openai:o4-mini", 1.1, 4.4),
            ("openai:openrouter/anthropic/claude-sonnet-4.5", 3.0, 15.0),
            ("openai:anthropic/claude-3.7-sonnet:thinking", 3.0, 15.0),
            ("openai:openai/gpt-4.1", 2.0, 8.0),
        ] {
            let price = table_price(name).unwrap_or_else(|| panic!("{name} has a price"));
            assert_eq!(
                (price.prompt_per_mtok, price.completion_per_mtok),
                (p, c),
                "{name}"
            );
        }
    }

    #[test]
    fn local_and_free_models_cost_nothing_unless_priced() {
        let cfg = ModelConfig::default();
        let free = Some((Price::FREE, PriceSource::Local));
        assert_eq!(price_of(None, &cfg, "openai:local", false), free);
        assert_eq!(price_of(None, &cfg, "openai:qwen2.5-coder", true), free);
        assert_eq!(price_of(None, &cfg, "openai:qwen2.5-coder", false), None);
        assert_eq!(
            price_of(
                None,
                &cfg,
                "openai:meta-llama/llama-3.3-70b-instruct:free",
                false
            ),
            Some((Price::FREE, PriceSource::Free))
        );
        // A known hosted model behind a local proxy still costs its list price.
        assert_eq!(
            price_of(None, &cfg, "openai:gpt-4.1", true).map(|p| p.1),
            Some(PriceSource::Table)
        );
        let priced = ModelConfig {
            price_prompt_per_mtok: Some(0.5),
            ..Default::default()
        };
        let (p, source) = price_of(None, &priced, "openai:local", true).unwrap();
        assert_eq!(
            (p.prompt_per_mtok, p.completion_per_mtok, source),
            (0.5, 0.0, PriceSource::Config)
        );
    }

    #[test]
    fn the_operator_price_wins_and_is_parsed_strictly() {
        let p = Price::parse(" 3, $15 ").unwrap();
        assert_eq!((p.prompt_per_mtok, p.completion_per_mtok), (3.0, 15.0));
        let cfg = ModelConfig {
            price_prompt_per_mtok: Some(1.0),
            price_completion_per_mtok: Some(1.0),
            ..Default::default()
        };
        assert_eq!(
            price_of(Some(p), &cfg, "gpt-4o", false),
            Some((p, PriceSource::Operator))
        );
        for bad in ["3", "a,b", "-1,2", "1,inf", ""] {
            let e = Price::parse(bad).unwrap_err();
            assert!(
                e.contains("price-per-mtok") && e.contains("\"3,15\""),
                "{e}"
            );
        }
    }
}
