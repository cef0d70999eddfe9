//! A run's turns a page at a time, whole chains without a submission summarised, and a finder for any turn.
//!
//! A run scored in the page has a row for every turn of its dataset, also those the bundle
//! does not give (they are scored as missing submissions): 3,000 rows for a 20-turn bundle
//! against a paper-scale dataset. Drawing them all froze the page for 1.3 to 3.1 s, so the
//! table draws [`PAGE_ITEMS`] rows at a time, each run of whole chains with no submission
//! is one summary row (listed in full on request), and a user finds any turn by its chain
//! and number, which turns to its page and marks it.

use std::collections::BTreeMap;

use leptos::prelude::*;
use wheelwright_core::reporeuse::metrics::turn::SubmissionStatus;

use super::run::{RunLinks, TurnTests, chain_head, turn_row, turns_header};
use crate::api::TurnTableRow;

/// Rows a page draws: a few milliseconds of drawing, a screen or two of reading.
pub(crate) const PAGE_ITEMS: usize = 100;

/// One row of the table as paged.
#[derive(Clone, Debug, PartialEq)]
enum Item {
    /// The turn `rows[i]`.
    Row(usize),
    /// `rows[from..to]`: `chains` whole chains in a row none of whose turns has a submission.
    Unsubmitted {
        from: usize,
        to: usize,
        chains: usize,
    },
}

impl Item {
    /// The rows it stands for.
    fn rows(&self) -> std::ops::Range<usize> {
        match *self {
            Self::Row(i) => i..i + 1,
            Self::Unsubmitted { from, to, .. } => from..to,
        }
    }
}

/// The table's rows: one per turn, except that with `summarise` each run of whole chains
/// without a submission is one (`rows` come chain after chain, in order).
fn items(rows: &[TurnTableRow], summarise: bool) -> Vec<Item> {
    let mut items = Vec::new();
    let mut at = 0;
    while at < rows.len() {
        let chain = &rows[at].row.chain;
        let end = at
            + rows[at..]
                .iter()
                .take_while(|r| &r.row.chain == chain)
                .count();
        let unsubmitted = summarise
            && rows[at..end]
                .iter()
                .all(|r| r.row.submission == SubmissionStatus::Missing);
        if !unsubmitted {
            items.extend((at..end).map(Item::Row));
        } else if let Some(Item::Unsubmitted { to, chains, .. }) = items.last_mut()
            && *to == at
        {
            *to = end;
            *chains += 1;
        } else {
            items.push(Item::Unsubmitted {
                from: at,
                to: end,
                chains: 1,
            });
        }
        at = end;
    }
    items
}

/// `n` with its thousands separated by commas, as the page writes counts.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The rows of one page, grouped by chain; `found` is the row a user looked for.
fn page_view(
    links: RunLinks,
    rows: &[TurnTableRow],
    page: &[Item],
    turn_counts: &BTreeMap<String, i64>,
    found: Option<usize>,
) -> impl IntoView + use<> {
    let no_tests = TurnTests::new();
    let mut bodies: Vec<AnyView> = Vec::new();
    // The chain being drawn and its rows so far.
    let mut open: Option<(String, Vec<AnyView>)> = None;
    let close = |open: &mut Option<(String, Vec<AnyView>)>, bodies: &mut Vec<AnyView>, first| {
        if let Some((chain, drawn)) = open.take() {
            let continued = first;
            bodies.push(
                view! {
                    <tbody class="chain" data-chain=chain.clone()>
                        {chain_head(&chain, turn_counts, continued)}
                        {drawn}
                    </tbody>
                }
                .into_any(),
            );
        }
    };
    // Whether the chain being drawn began on an earlier page.
    let mut continued = false;
    for item in page {
        match *item {
            Item::Row(i) => {
                let row = &rows[i];
                if open
                    .as_ref()
                    .is_none_or(|(chain, _)| *chain != row.row.chain)
                {
                    close(&mut open, &mut bodies, continued);
                    continued =
                        bodies.is_empty() && i > 0 && rows[i - 1].row.chain == row.row.chain;
                    open = Some((row.row.chain.clone(), Vec::new()));
                }
                if let Some((_, drawn)) = open.as_mut() {
                    drawn.push(turn_row(links, row, &no_tests, found == Some(i)).into_any());
                }
            }
            Item::Unsubmitted { from, to, chains } => {
                close(&mut open, &mut bodies, continued);
                let first = &rows[from].row.chain;
                let last = &rows[to - 1].row.chain;
                let which = if chains == 1 {
                    format!("chain {first}")
                } else {
                    format!("chains {first} to {last}")
                };
                let text = format!(
                    "{} {} ({} turns) with no submission: {which}. Each turn is scored as a missing submission.",
                    thousands(chains),
                    if chains == 1 { "chain" } else { "chains" },
                    thousands(to - from),
                );
                bodies.push(
                    view! {
                        <tbody class="unsubmitted" data-from=from data-to=to>
                            <tr class="unsubmitted-row"><td colspan="13">{text}</td></tr>
                        </tbody>
                    }
                    .into_any(),
                );
            }
        }
    }
    close(&mut open, &mut bodies, continued);
    bodies
}

/// Scrolls `element` to the middle of the window, so the rows around it show too
/// (`scrollIntoView({block: "center"})`, whose options web-sys binds behind features this
/// app does not otherwise need).
fn center(element: &web_sys::Element) {
    use wasm_bindgen::JsCast;
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"block".into(), &"center".into());
    let scroll = js_sys::Reflect::get(element, &"scrollIntoView".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    match scroll {
        Some(scroll) => {
            let _ = scroll.call1(element, &options);
        }
        None => element.scroll_into_view(),
    }
}

/// The page's wasm memory in bytes. It only grows, so once a run is scored and about to be
/// drawn this is the most the page has held (the browser benchmark reads it).
fn wasm_memory_bytes() -> f64 {
    use wasm_bindgen::JsCast;
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .ok()
        .and_then(|m| m.buffer().dyn_into::<js_sys::ArrayBuffer>().ok())
        .map_or(0.0, |b| f64::from(b.byte_length()))
}

/// The turns of a run scored in the page, a page at a time (see the module's summary).
#[component]
pub(crate) fn TurnPages(
    links: RunLinks,
    rows: Vec<TurnTableRow>,
    turn_counts: BTreeMap<String, i64>,
) -> impl IntoView {
    let total = rows.len();
    let chain_ids: Vec<String> = turn_counts.keys().cloned().collect();
    let rows = StoredValue::new_local(rows);
    let turn_counts = StoredValue::new_local(turn_counts);
    // Whole chains without a submission summarised, until the user lists them.
    let summarise = RwSignal::new(true);
    let items = Memo::new(move |_| rows.with_value(|rows| items(rows, summarise.get())));
    let page = RwSignal::new(0_usize);
    let found = RwSignal::new(None::<usize>);
    let (find_error, set_find_error) = signal(None::<String>);
    let pages = Signal::derive(move || items.with(|i| i.len().div_ceil(PAGE_ITEMS).max(1)));
    let any_summarised =
        Signal::derive(move || items.with(|i| i.iter().any(|i| !matches!(i, Item::Row(_)))));
    let chain_input = NodeRef::<leptos::html::Input>::new();
    let turn_input = NodeRef::<leptos::html::Input>::new();

    // "Turns 101–200 of 3,000": the rows the page's items stand for.
    let shown = move || {
        let p = page.get().min(pages.get() - 1);
        items.with(|items| {
            let on_page = &items[(p * PAGE_ITEMS).min(items.len())..]
                [..PAGE_ITEMS.min(items.len().saturating_sub(p * PAGE_ITEMS))];
            let (Some(first), Some(last)) = (on_page.first(), on_page.last()) else {
                return "No turns".to_owned();
            };
            let summarised: usize = on_page
                .iter()
                .filter(|i| !matches!(i, Item::Row(_)))
                .map(|i| i.rows().len())
                .sum();
            let mut text = format!(
                "Turns {}–{} of {}",
                thousands(first.rows().start + 1),
                thousands(last.rows().end),
                thousands(total)
            );
            if summarised > 0 {
                text.push_str(&format!(
                    " ({} without a submission in one row)",
                    thousands(summarised)
                ));
            }
            text
        })
    };
    let body = move || {
        let p = page.get().min(pages.get() - 1);
        let found = found.get();
        items.with(|items| {
            let start = (p * PAGE_ITEMS).min(items.len());
            let end = (start + PAGE_ITEMS).min(items.len());
            rows.with_value(|rows| {
                turn_counts
                    .with_value(|counts| page_view(links, rows, &items[start..end], counts, found))
            })
        })
    };
    let go = move |to: usize| {
        found.set(None);
        page.set(to.min(pages.get_untracked() - 1));
    };

    // Finds a turn by chain and number: turns to its page (listing summarised chains if it
    // is in one), marks it and scrolls to it.
    let find = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        let chain = chain_input
            .get_untracked()
            .map(|i| i.value().trim().to_owned())
            .unwrap_or_default();
        let turn = turn_input
            .get_untracked()
            .and_then(|i| i.value().trim().parse::<i64>().ok());
        let Some(turn) = turn else {
            set_find_error.set(Some("Give the turn's number (1, 2, …).".to_owned()));
            return;
        };
        let at = rows.with_value(|rows| {
            rows.iter()
                .position(|r| r.row.chain == chain && r.row.turn == turn)
        });
        let Some(at) = at else {
            set_find_error.set(Some(format!(
                "This run has no turn {turn} of a chain {chain:?}."
            )));
            return;
        };
        set_find_error.set(None);
        let in_summary = items.with_untracked(|items| {
            items
                .iter()
                .any(|i| !matches!(i, Item::Row(_)) && i.rows().contains(&at))
        });
        if in_summary {
            summarise.set(false);
        }
        let index = items
            .with_untracked(|items| items.iter().position(|i| *i == Item::Row(at)).unwrap_or(0));
        page.set(index / PAGE_ITEMS);
        found.set(Some(at));
        request_animation_frame(|| {
            if let Ok(Some(row)) = document().query_selector("#turns tr.found") {
                center(&row);
            }
        });
    };

    let controls = move || {
        (pages.get() > 1 || any_summarised.get() || !summarise.get()).then(|| {
            let last = pages.get() - 1;
            let p = page.get().min(last);
            view! {
                <div class="turn-pager" id="turn-pager">
                    <button class="button" id="turns-first" disabled=p == 0 on:click=move |_| go(0)>"« First"</button>
                    <button class="button" id="turns-previous" disabled=p == 0 on:click=move |_| go(p.saturating_sub(1))>"‹ Previous"</button>
                    <span class="pager-state">{format!("page {} of {}", p + 1, last + 1)}</span>
                    <button class="button" id="turns-next" disabled=p == last on:click=move |_| go(p + 1)>"Next ›"</button>
                    <button class="button" id="turns-last" disabled=p == last on:click=move |_| go(last)>"Last »"</button>
                    {(any_summarised.get() || !summarise.get()).then(|| {
                        let listing = !summarise.get();
                        view! {
                            <label class="list-unsubmitted">
                                <input type="checkbox" id="list-unsubmitted" prop:checked=listing
                                    on:change=move |_| {
                                        found.set(None);
                                        page.set(0);
                                        summarise.update(|s| *s = !*s);
                                    } />
                                " list every turn without a submission"
                            </label>
                        }
                    })}
                </div>
            }
        })
    };
    // Below the table too, so a reader at the end of a page turns it without scrolling back.
    let below = move || {
        (pages.get() > 1).then(|| {
            let last = pages.get() - 1;
            let p = page.get().min(last);
            view! {
                <div class="turn-pager below">
                    <button class="button" id="turns-previous-below" disabled=p == 0 on:click=move |_| go(p.saturating_sub(1))>"‹ Previous"</button>
                    <span class="pager-state">{shown}</span>
                    <button class="button" id="turns-next-below" disabled=p == last on:click=move |_| go(p + 1)>"Next ›"</button>
                </div>
            }
        })
    };
    let options = chain_ids
        .into_iter()
        .map(|c| view! { <option value=c></option> })
        .collect_view();

    view! {
        <div class="turn-pages" id="turn-pages" data-wasm-memory-bytes=wasm_memory_bytes()>
            <p class="turns-shown" id="turns-shown" role="status">{shown}</p>
            <form class="turn-finder" id="turn-finder" on:submit=find>
                <label>"Chain "
                    <input id="find-chain" list="find-chains" node_ref=chain_input autocomplete="off" />
                </label>
                <datalist id="find-chains">{options}</datalist>
                <label>"Turn "
                    <input id="find-turn" type="number" min="1" node_ref=turn_input />
                </label>
                <button class="button" id="find-go" type="submit">"Find the turn"</button>
                {move || find_error.get().map(|e| view! { <span class="error" id="find-error">{e}</span> })}
            </form>
            {controls}
            <div class="table-scroll">
                <table class="data turns" id="turns">
                    {turns_header()}
                    {body}
                </table>
            </div>
            {below}
        </div>
    }
}
