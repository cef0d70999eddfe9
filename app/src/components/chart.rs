//! Line and bar charts: core's plotters SVG in a figure with its caption and legend.
//!
//! Core draws the SVG (`present::plot`), each point and bar with a `<title>` holding its
//! exact value, so hovering (or a screen reader) gives it; its classes (`tick`, `grid`,
//! `series-N`) are coloured for both themes by the stylesheet. The legend is a list here,
//! not part of the drawing, so it wraps to the page's width; the table next to each chart
//! is the fallback for anyone who cannot see it.

use leptos::prelude::*;
use wheelwright_core::metric;
use wheelwright_core::present::chart::{Bars, Chart};
use wheelwright_core::present::plot::{self, Frame, PlotError};

/// The drawing's size in SVG units; the SVG scales to its container's width.
const SIZE: (u32, u32) = (480, 260);
/// A chart in a grid of small ones, drawn smaller so its text stays readable at the width
/// the grid gives it.
const COMPACT: (u32, u32) = (320, 190);

/// Series colours cycle through eight CSS classes (`.series-0` ..), defined for both themes.
fn series_class(i: usize) -> String {
    format!("series series-{}", i % 8)
}

/// Core's SVG as the figure's drawing, or, should plotters fail, a line saying so (the
/// table beside it still has every value).
fn drawing(svg: Result<String, PlotError>) -> impl IntoView {
    match svg {
        Ok(svg) => view! { <div class="plot" inner_html=svg></div> }.into_any(),
        Err(e) => view! { <p class="muted">{e.to_string()}</p> }.into_any(),
    }
}

/// A line chart of `chart`: one line per series, a dot at each value, a legend below
/// when there is more than one. `compact` draws it smaller, for a grid of small charts.
#[component]
pub(crate) fn LineChart(chart: Chart, #[prop(optional)] compact: bool) -> impl IntoView {
    let size = if compact { COMPACT } else { SIZE };
    let legend = (chart.series.len() > 1).then(|| {
        let items = chart
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| view! { <li class=series_class(i)><span class="swatch"></span>{s.name.clone()}</li> })
            .collect_view();
        view! { <ul class="legend">{items}</ul> }
    });
    view! {
        <figure class="chart line-chart" data-metric=chart.metric.clone() data-series-count=chart.series.len()>
            <figcaption>{chart.title()}</figcaption>
            {drawing(plot::line_svg(&chart, size, Frame::Page))}
            {legend}
        </figure>
    }
}

/// A horizontal bar chart of `bars`: each row's label at the left, its bar from zero.
#[component]
pub(crate) fn BarChart(bars: Bars) -> impl IntoView {
    let definition = metric::metric(&bars.metric)
        .map(|m| m.definition)
        .unwrap_or_default();
    // Labels such as "ReCUBE-Instruct · GPT-5-mini" need about 40% of the width.
    view! {
        <figure class="chart bar-chart" data-metric=bars.metric.clone() data-series-count=bars.bars.len()>
            <figcaption title=definition>{bars.title()}</figcaption>
            {drawing(plot::bars_svg(&bars, SIZE.0, 0.42, Frame::Page))}
        </figure>
    }
}
