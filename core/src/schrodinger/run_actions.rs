//! A SchrodingerRepo run read from its files (trajectories and SWE-bench reports), with its per-run metrics: Pass@1, the action mix, token usage.
//!
//! A run is what an agent harness and the SWE-bench evaluation leave behind: one trajectory
//! per instance (`<id>.traj.json`, or gzip-compressed) and the evaluation's reports, either
//! one `report.json` per instance (`{"<id>": {"resolved": true, ...}}`) or the run's summary
//! (`{"resolved_ids": [...], ...}`). Files are told apart by their content, not their
//! names or folders, so the command line (a directory) and the page (files a user picked)
//! read a run the same way. Each file is read, summarised and let go ([`RunReader::add`]),
//! so a run of hundreds of trajectories is never held whole. Files that are neither are
//! skipped with a diagnostic; reading never fails.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

use crate::archive::Packing;

use serde::{Deserialize, Serialize};

use crate::metric::Score;
use crate::schrodinger::action_mix::{ActionMix, action_mix};
use crate::schrodinger::pass_at_1::pass_at_1;
use crate::schrodinger::token_usage::{TokenUsage, token_usage};
use crate::trajectory::{
    Category, InterpretOptions, Tokens, TrajectorySummary, parse_trajectory_bytes,
};

/// The most a file may hold once decompressed: a long real trajectory is a few MB.
pub const FILE_LIMIT: u64 = 64 * 1024 * 1024;

/// Whether a file named `name` may be part of a run (`.json`, `.json.gz`): what hosts read
/// of a folder or a pick of files; anything else (logs, patches) is not looked at.
pub fn is_run_file(name: &str) -> bool {
    name.ends_with(".json") || name.ends_with(".json.gz")
}

/// One instance of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceActions {
    pub id: String,
    /// What the evaluation said; `None` when no report names the instance.
    pub resolved: Option<bool>,
    pub actions: usize,
    pub by_category: BTreeMap<Category, usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
}

/// A run's instances and its metrics (spec 3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunActions {
    /// By instance id.
    pub instances: Vec<InstanceActions>,
    /// Instances resolved.
    pub resolved: usize,
    /// Undefined without instances, or when no report came with the run.
    pub pass_at_1: Score,
    pub mix: ActionMix,
    pub tokens: TokenUsage,
    /// What was skipped or assumed, for the reader: a file that is neither a trajectory nor
    /// a report, an instance without a report.
    pub diagnostics: Vec<String>,
}

/// Reads a run one file at a time.
#[derive(Debug, Default)]
pub struct RunReader {
    instances: BTreeMap<String, (TrajectorySummary, Option<Tokens>)>,
    outcomes: BTreeMap<String, bool>,
    /// A summary report was read: instances it does not list as resolved are not.
    summary: bool,
    /// Files skipped, by why.
    skipped: BTreeMap<String, Vec<String>>,
}

impl RunReader {
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the file `name` (used in diagnostics, and as the instance id of a
    /// trajectory that does not name its instance) holding `bytes`, gzip-compressed or not.
    pub fn add(&mut self, name: &str, bytes: &[u8]) {
        let inflated;
        let bytes = if Packing::of(bytes) == Packing::Gzip {
            match gunzip(bytes) {
                Ok(b) => {
                    inflated = b;
                    &inflated[..]
                }
                Err(why) => return self.skip(name, &why),
            }
        } else {
            bytes
        };
        // Trajectories are most of a run's bytes: read first, without copying strings.
        let error = match parse_trajectory_bytes(bytes) {
            Ok(trajectory) => {
                let id = trajectory
                    .instance_id
                    .clone()
                    .unwrap_or_else(|| instance_of_file(name));
                if self.instances.contains_key(&id) {
                    return self.skip(name, &format!("a second trajectory of {id}"));
                }
                let summary = TrajectorySummary::of(&trajectory, &InterpretOptions::new(None));
                self.instances.insert(id, (summary, trajectory.tokens));
                return;
            }
            Err(e) => e,
        };
        let is_report = serde_json::from_slice::<serde_json::Value>(bytes)
            .is_ok_and(|value| self.add_report(name, &value));
        if !is_report {
            self.skip(
                name,
                &format!("neither a trajectory ({error}) nor a SWE-bench report"),
            );
        }
    }

    /// Reads `value`, the file `name`, as a report: a run summary with `resolved_ids`,
    /// per-instance reports (`{id: {"resolved": bool}}`), or one instance's report as the
    /// evaluation's `logs/<id>/report.json` sometimes holds it, without the id
    /// (`{"resolved": bool, ...}`: the instance is then the folder's name). False when it is
    /// neither.
    fn add_report(&mut self, name: &str, value: &serde_json::Value) -> bool {
        let Some(object) = value.as_object() else {
            return false;
        };
        if let Some(resolved) = object.get("resolved").and_then(|v| v.as_bool()) {
            self.record(instance_of_report(name), resolved);
            return true;
        }
        if let Some(ids) = object.get("resolved_ids").and_then(|v| v.as_array()) {
            self.summary = true;
            for id in ids.iter().filter_map(|v| v.as_str()) {
                self.outcomes.insert(id.to_owned(), true);
            }
            return true;
        }
        // SWE-bench's predictions (`preds.json`, `{id: {"model_patch": ...}}`) come with a
        // run too: known, and nothing in them is counted here.
        if !object.is_empty()
            && object
                .values()
                .all(|p| p.get("model_patch").is_some() && p.get("resolved").is_none())
        {
            return true;
        }
        let outcomes: Option<Vec<(&String, bool)>> = object
            .iter()
            .map(|(id, report)| Some((id, report.get("resolved")?.as_bool()?)))
            .collect();
        match outcomes {
            Some(outcomes) if !outcomes.is_empty() => {
                for (id, resolved) in outcomes {
                    self.record(id.clone(), resolved);
                }
                true
            }
            _ => false,
        }
    }

    /// Records what a report says of instance `id`; resolved in any report is resolved.
    fn record(&mut self, id: String, resolved: bool) {
        *self.outcomes.entry(id).or_insert(resolved) |= resolved;
    }

    /// Records that the file `name` was not read because it is over [`FILE_LIMIT`] (a host
    /// checks a file's size before reading it).
    pub fn skip_over_limit(&mut self, name: &str) {
        self.skip(
            name,
            &format!("over {} MiB, not read", FILE_LIMIT / 1024 / 1024),
        );
    }

    fn skip(&mut self, name: &str, why: &str) {
        self.skipped
            .entry(why.to_owned())
            .or_default()
            .push(name.to_owned());
    }

    /// The run's instances and metrics.
    pub fn finish(self) -> RunActions {
        let Self {
            instances,
            outcomes,
            summary: summary_report,
            skipped,
        } = self;
        // One line per reason, naming a few files: a run folder may hold hundreds of
        // files of a kind the reader skips (logs, predictions).
        let mut diagnostics: Vec<String> = skipped
            .iter()
            .map(|(why, names)| {
                let shown: Vec<&str> = names.iter().take(3).map(String::as_str).collect();
                let more = names.len() - shown.len();
                format!(
                    "skipped {} file(s), {}{}: {why}",
                    names.len(),
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                )
            })
            .collect();
        let judged = summary_report || !outcomes.is_empty();
        let mut unreported = Vec::new();
        let (instances, summaries): (Vec<InstanceActions>, Vec<TrajectorySummary>) = instances
            .into_iter()
            .map(|(id, (summary, tokens))| {
                // With reports, an instance none of them names was not resolved.
                let resolved = outcomes.get(&id).copied().or(judged.then_some(false));
                if judged && !outcomes.contains_key(&id) && !summary_report {
                    unreported.push(id.clone());
                }
                let instance = InstanceActions {
                    id,
                    resolved,
                    actions: summary.actions,
                    by_category: summary.by_category.clone(),
                    tokens,
                };
                (instance, summary)
            })
            .unzip();
        if !unreported.is_empty() {
            diagnostics.push(format!(
                "{} instance(s) have no report and count as not resolved, as SWE-bench counts them: {}",
                unreported.len(),
                unreported.join(", ")
            ));
        }
        let ids: BTreeSet<&str> = instances.iter().map(|i| i.id.as_str()).collect();
        let orphans = outcomes
            .keys()
            .filter(|id| !ids.contains(id.as_str()))
            .count();
        if orphans > 0 {
            diagnostics.push(format!(
                "{orphans} reported instance(s) have no trajectory and are left out"
            ));
        }
        if !judged && !instances.is_empty() {
            diagnostics.push(
                "no SWE-bench report came with the run, so Pass@1 is undefined; add the evaluation's report.json files".to_owned(),
            );
        }
        let resolved = instances
            .iter()
            .filter(|i| i.resolved == Some(true))
            .count();
        let pass_at_1 = if judged {
            pass_at_1(resolved, instances.len())
        } else {
            Score::Undefined {
                reason: crate::metric::Undefined::NoTests,
            }
        };
        let tokens: Vec<Option<Tokens>> = instances.iter().map(|i| i.tokens).collect();
        RunActions {
            resolved,
            pass_at_1,
            mix: action_mix(&summaries),
            tokens: token_usage(&tokens),
            instances,
            diagnostics,
        }
    }
}

/// The folder a file named `name` is in (`None` at the top) and its name without `.json`
/// or `.json.gz`: `logs/x/report.json.gz` -> (`x`, `report`).
fn folder_and_stem(name: &str) -> (Option<&str>, &str) {
    let mut parts = name.rsplit(['/', '\\']);
    let file = parts.next().unwrap_or(name);
    let stem = file.strip_suffix(".gz").unwrap_or(file);
    let stem = stem.strip_suffix(".json").unwrap_or(stem);
    (parts.next().filter(|f| !f.is_empty()), stem)
}

/// The instance a trajectory file is of, by its name: `a/b/x.traj.json.gz` -> `x`.
fn instance_of_file(name: &str) -> String {
    let (_, stem) = folder_and_stem(name);
    stem.strip_suffix(".traj").unwrap_or(stem).to_owned()
}

/// The instance an unwrapped report is of: the folder it is in (`logs/<id>/report.json`),
/// else its own name (`<id>.json`).
fn instance_of_report(name: &str) -> String {
    match folder_and_stem(name) {
        (Some(folder), "report") => folder.to_owned(),
        (_, stem) => stem.to_owned(),
    }
}

/// `bytes` inflated, within [`FILE_LIMIT`].
fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .take(FILE_LIMIT + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("not valid gzip ({e})"))?;
    if out.len() as u64 > FILE_LIMIT {
        return Err(format!(
            "over {} MiB once decompressed",
            FILE_LIMIT / 1024 / 1024
        ));
    }
    Ok(out)
}
