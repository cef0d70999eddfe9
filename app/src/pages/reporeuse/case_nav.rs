//! Where a turn's case sits (its run's page, its chain's length, its dataset) and whether it is of a stored run or of one scored in this page: what the case page and its case studies both read.

use std::collections::BTreeMap;

use crate::api::RunDetail;
use wheelwright_core::api::TurnObservations;

/// Where a case sits and where what it links to lives.
#[derive(Clone, Debug)]
pub(crate) struct CaseNav {
    /// The run's page: a turn's case is `{base}/{chain}/{turn}`.
    pub(crate) base: String,
    /// How many turns the case's chain has.
    pub(crate) turn_count: i64,
    /// The dataset's name and version, for links into its repository's source.
    pub(crate) dataset: (String, String),
    pub(crate) origin: CaseOrigin,
}

/// Whether the case is of a stored run (its hidden tests and observations are on the
/// server) or of one scored in this page (the bundle's trajectory is here).
#[derive(Clone, Debug)]
pub(crate) enum CaseOrigin {
    Stored(i64),
    Local {
        observations: Option<TurnObservations>,
        /// The agent's files of the turn before, by path (where its own targets are).
        earlier_files: BTreeMap<String, String>,
    },
}

impl CaseNav {
    /// The nav of a turn of `run` (a stored run, or the one scored here).
    pub(crate) fn of(run: &RunDetail, chain: &str, base: String, origin: CaseOrigin) -> Self {
        let turn_count = run
            .chains
            .iter()
            .find(|c| c.chain == chain)
            .map_or(0, |c| c.turn_count);
        Self {
            base,
            turn_count,
            dataset: (
                run.summary.dataset_name.clone(),
                run.summary.dataset_version.clone(),
            ),
            origin,
        }
    }

    pub(crate) fn turn_href(&self, chain: &str, turn: i64) -> String {
        format!(
            "{}/{}/{turn}",
            self.base,
            js_sys::encode_uri_component(chain)
        )
    }
}
