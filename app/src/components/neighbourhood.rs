//! Draws core's layout of a ReCUBE target's neighbourhood as SVG: columns of files and classes around the withheld target, with labelled edges; each file links to its source.

use leptos::prelude::*;
use wheelwright_core::recube::views::{Neighbourhood, Role};

fn role_class(role: Role) -> &'static str {
    match role {
        Role::Target => "node target",
        Role::Caller => "node caller",
        Role::Parent => "node parent",
        Role::Sibling => "node sibling",
        Role::Subclass => "node subclass",
        Role::Neighbour => "node neighbour",
    }
}

/// The drawing; `link(path)` is where a file's label leads.
#[component]
pub(crate) fn NeighbourhoodGraph(
    graph: Neighbourhood,
    link: impl Fn(&str) -> String + 'static,
) -> impl IntoView {
    let edges = graph
        .edges
        .iter()
        .map(|e| {
            let label = (!e.label.is_empty()).then(|| {
                // The label sits near the caller's end, where edges are still apart.
                let (x, y) = (e.x1 + (e.x2 - e.x1) * 0.22, e.y1 + (e.y2 - e.y1) * 0.22 - 3.0);
                view! { <text class="edge-label" x=x y=y text-anchor="middle">{e.label.clone()}</text> }
            });
            view! {
                <g class="edge">
                    <line x1=e.x1 y1=e.y1 x2=e.x2 y2=e.y2 />
                    {label}
                </g>
            }
        })
        .collect_view();
    let nodes = graph
        .nodes
        .iter()
        .map(|n| {
            let text = view! {
                <text class=role_class(n.role) x=n.x y=n.y text-anchor=n.anchor.clone()>
                    {n.label.clone()}
                </text>
            };
            match (&n.path, n.role) {
                // An SVG link: the view macro would make `<a>` an HTML element, whose text
                // an SVG does not draw.
                (Some(path), role) if role != Role::Target => leptos::svg::a()
                    .attr("href", link(path))
                    .child(text)
                    .into_any(),
                _ => text.into_any(),
            }
        })
        .collect_view();
    let titles = graph
        .titles
        .iter()
        .map(|t| {
            view! { <text class="column-title" x=t.x y="20" text-anchor=t.anchor.clone()>{t.text.clone()}</text> }
        })
        .collect_view();
    let left_out = (graph.left_out > 0).then(|| {
        view! { <p class="muted">{format!("{} more not drawn (at most 30 nodes).", graph.left_out)}</p> }
    });
    let nodes_drawn = graph.nodes.len();
    view! {
        <figure class="neighbourhood" id="neighbourhood">
            <div class="table-scroll">
                <svg
                    viewBox=format!("0 0 {} {}", graph.width, graph.height)
                    role="img"
                    aria-label=format!("The target's neighbourhood: {nodes_drawn} nodes")
                >
                    {titles}
                    {edges}
                    {nodes}
                </svg>
            </div>
            {left_out}
        </figure>
    }
}
