//! A run's token usage (spec 3): the mean input and output tokens per instance, over the instances whose trajectory recorded them.
//!
//! Stripping familiar names costs an agent more reading before it acts; the paper reports
//! that as the rise in input tokens (GPT 5.1: +162 % under level 2). Input tokens are
//! every call's whole prompt, summed over the trajectory, so they grow with both the number
//! of calls and the context each carries. A harness that does not record usage gives no
//! tokens: those instances are left out of the mean (and counted, so a reader sees how
//! many it rests on); with none recorded both means are undefined. Example: two instances
//! with 1,000 and 3,000 input tokens and one without usage: 2,000 input tokens per
//! instance, over 2 instances.
//! ```
//! use wheelwright_core::schrodinger::token_usage::token_usage;
//! use wheelwright_core::trajectory::Tokens;
//! let usage = token_usage(&[
//!     Some(Tokens { input: 1_000, output: 100 }),
//!     Some(Tokens { input: 3_000, output: 300 }),
//!     None,
//! ]);
//! assert_eq!(usage.instances, 2);
//! assert_eq!(usage.input.value(), Some(2_000.0));
//! assert_eq!(usage.output.value(), Some(200.0));
//! ```

use serde::{Deserialize, Serialize};

use crate::metric::{Score, Undefined};
use crate::trajectory::Tokens;

/// Mean tokens per instance.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Instances whose trajectory recorded its tokens: the means are over these.
    pub instances: usize,
    pub input: Score,
    pub output: Score,
}

/// The usage of a run's instances, one entry per instance (`None`: not recorded).
pub fn token_usage(tokens: &[Option<Tokens>]) -> TokenUsage {
    let given: Vec<Tokens> = tokens.iter().flatten().copied().collect();
    let mean = |part: fn(&Tokens) -> u64| {
        if given.is_empty() {
            Score::Undefined {
                reason: Undefined::NoTokens,
            }
        } else {
            Score::Defined {
                value: given.iter().map(|t| part(t) as f64).sum::<f64>() / given.len() as f64,
            }
        }
    };
    TokenUsage {
        instances: given.len(),
        input: mean(|t| t.input),
        output: mean(|t| t.output),
    }
}
