//! SchrodingerRepo on the server: a view of one of a dataset's repositories, made on request for the view explorer (`GET /api/v1/schrodinger/...`).
//!
//! The view itself is core's ([`wheelwright_core::schrodinger::view::view_file`]): the
//! whole repository renamed (level 2) and reordered (level 3) under a seed, then one file
//! of it beside its original. Here are what a request asks for and what it gets back; the
//! route (`routes/schrodinger.rs`) turns them into HTTP.

use std::collections::BTreeMap;

use wheelwright_core::api::ViewFile;

use crate::dataset::recube::LoadedRecube;

/// What a view request asks for: the seed, the levels and the file (the first without one).
pub(crate) struct ViewRequest {
    seed: u64,
    levels: Vec<u8>,
    path: Option<String>,
    /// Level 2 as a virtual namespace (`namespace=virtual`) rather than a rewritten file.
    virtual_namespace: bool,
}

impl ViewRequest {
    /// Reads `seed` (default 0), `levels` (default `2,3`), `path` and `namespace`
    /// (`materialised`, the default, or `virtual` with level 2 alone) from a query; what is
    /// wrong with it, said to the client, else.
    pub(crate) fn parse(params: &BTreeMap<String, String>) -> Result<Self, String> {
        for key in params.keys() {
            if !matches!(key.as_str(), "seed" | "levels" | "path" | "namespace") {
                return Err(format!(
                    "unknown parameter {key:?}; give seed, levels (2, 3 or 2,3), path and namespace (materialised or virtual)"
                ));
            }
        }
        let virtual_namespace = match params.get("namespace").map(String::as_str) {
            None | Some("materialised") => false,
            Some("virtual") => true,
            Some(other) => {
                return Err(format!(
                    "namespace {other:?} is neither materialised nor virtual"
                ));
            }
        };
        let seed = match params.get("seed") {
            None => 0,
            Some(s) => s
                .parse::<u64>()
                .map_err(|_| format!("seed {s:?} is not a whole number from 0 to 2^64-1"))?,
        };
        let levels = params
            .get("levels")
            .map_or("2,3", String::as_str)
            .split(',')
            .map(|l| {
                l.trim()
                    .parse::<u8>()
                    .map_err(|_| format!("level {l:?} is not a number; give 2, 3 or 2,3"))
            })
            .collect::<Result<Vec<u8>, _>>()?;
        if virtual_namespace && levels != [2] {
            return Err(
                "a virtual namespace is level 2 alone; give levels=2 with namespace=virtual"
                    .to_owned(),
            );
        }
        Ok(Self {
            seed,
            levels,
            path: params.get("path").cloned(),
            virtual_namespace,
        })
    }
}

/// What a view request gets.
pub(crate) enum Viewed {
    /// One file of the view beside its original.
    File(ViewFile),
    /// The dataset has no repository of that name.
    NoRepository,
    /// The repository has no such Python file.
    NoFile,
    /// The levels cannot be made here (levels 1 and 4 need a language model); why.
    Refused(String),
}

/// The view `request` asks for of `loaded`'s repository `repo`. Blocking: the view is made
/// from the whole repository (level 2's mapping needs every file), which the first call
/// may download.
pub(crate) fn view(
    loaded: &LoadedRecube,
    repo: &str,
    request: &ViewRequest,
) -> anyhow::Result<Viewed> {
    let Some(files) = loaded.repository(repo)? else {
        return Ok(Viewed::NoRepository);
    };
    if request.virtual_namespace {
        let made = wheelwright_core::schrodinger::view::virtual_view_file(
            &files,
            request.seed,
            request.path.as_deref(),
        );
        return Ok(made.map_or(Viewed::NoFile, Viewed::File));
    }
    let made = wheelwright_core::schrodinger::view::view_file(
        &files,
        &request.levels,
        request.seed,
        request.path.as_deref(),
    );
    Ok(match made {
        Err(refused) => Viewed::Refused(refused.to_string()),
        Ok(None) => Viewed::NoFile,
        Ok(Some(file)) => Viewed::File(file),
    })
}
