//! SVG line and bar charts drawn from core's chart geometry, with a legend and each value on hover.
//!
//! Core decides what goes where (`present::chart`); this file only turns its coordinates
//! into SVG elements. Every mark carries a `<title>`, so hovering (or a screen reader)
//! gives the exact value; the table next to each chart is the fallback for anyone who
//! cannot see it.

use leptos::prelude::*;
use wheelwright_core::metric::{self, Unit};
use wheelwright_core::present::chart::{self, Bars, Chart};

/// The drawing's size in SVG units; the SVG scales to its container's width.
const WIDTH: f64 = 480.0;
const HEIGHT: f64 = 260.0;
const COMPACT: (f64, f64) = (320.0, 190.0);

/// A value with the unit's suffix, as a tick label or in a tooltip.
fn value_text(unit: Unit, value: f64) -> String {
    let text = if value.fract() == 0.0 {
        format!("{value:.0}")
    } else if value.abs() < 1.0 {
        // Correlations and small shares: one decimal would hide the difference.
        format!("{value:.3}")
    } else {
        format!("{value:.1}")
    };
    match unit {
        Unit::Percent => format!("{text}%"),
        Unit::Dollars => format!("${text}"),
        Unit::Count => text,
    }
}

/// A bar's label cut to what fits beside the bars (the whole label is its `<title>`).
fn shortened(label: &str) -> String {
    const FITS: usize = 34;
    if label.chars().count() <= FITS {
        label.to_owned()
    } else {
        let cut: String = label.chars().take(FITS - 1).collect();
        format!("{}…", cut.trim_end())
    }
}

/// Series colours cycle through eight CSS classes (`.series-0` ..), defined for both themes.
fn series_class(i: usize) -> String {
    format!("series series-{}", i % 8)
}

/// The y axis: grid lines with their values, and the x positions' labels.
fn axes(drawn: &chart::Drawn, unit: Unit) -> impl IntoView + use<> {
    let (left, _, right, bottom) = drawn.area;
    let grid = drawn
        .y_ticks
        .iter()
        .map(|&(y, value)| {
            view! {
                <line class="grid" x1=left x2=right y1=y y2=y />
                <text class="tick" x=left - 6.0 y=y + 4.0 text-anchor="end">{value_text(unit, value)}</text>
            }
        })
        .collect_view();
    let labels = drawn
        .x_ticks
        .iter()
        .map(|(x, label)| {
            view! { <text class="tick" x=*x y=bottom + 18.0 text-anchor="middle">{label.clone()}</text> }
        })
        .collect_view();
    view! { {grid} {labels} }
}

/// A line chart of `chart`: one line per series, a dot at each value, a legend below
/// when there is more than one. `compact` draws it smaller, for a grid of small charts,
/// so its text stays readable at the width the grid gives it.
#[component]
pub(crate) fn LineChart(chart: Chart, #[prop(optional)] compact: bool) -> impl IntoView {
    let (width, height) = if compact {
        (COMPACT.0, COMPACT.1)
    } else {
        (WIDTH, HEIGHT)
    };
    let drawn = chart::draw(&chart, width, height);
    let unit = chart.unit();
    let lines = chart
        .series
        .iter()
        .enumerate()
        .map(|(i, series)| {
            let dots = drawn.points[i]
                .iter()
                .zip(&chart.x_labels)
                .filter_map(|(point, label)| point.map(|p| (p, label)))
                .map(|((x, y, value), label)| {
                    view! {
                        <circle cx=x cy=y r="4">
                            <title>{format!("{}, {label}: {}", series.name, value_text(unit, value))}</title>
                        </circle>
                    }
                })
                .collect_view();
            view! {
                <g class=series_class(i) data-series=series.name.clone()>
                    <path d=drawn.path(i) fill="none" />
                    {dots}
                </g>
            }
        })
        .collect_view();
    let legend = (chart.series.len() > 1).then(|| {
        let items = chart
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| view! { <li class=series_class(i)><span class="swatch"></span>{s.name.clone()}</li> })
            .collect_view();
        view! { <ul class="legend">{items}</ul> }
    });
    let title = chart.title();
    view! {
        <figure class="chart line-chart" data-metric=chart.metric.clone() data-series-count=chart.series.len()>
            <figcaption>{title.clone()}</figcaption>
            <svg viewBox=format!("0 0 {width} {height}") role="img" aria-label=title>
                {axes(&drawn, unit)}
                {lines}
            </svg>
            {legend}
        </figure>
    }
}

/// A horizontal bar chart of `bars`: each row's label at the left, its bar from zero.
#[component]
pub(crate) fn BarChart(bars: Bars) -> impl IntoView {
    // Labels such as "ReCUBE-Instruct · GPT-5-mini" need about 40% of the width.
    let drawn = chart::draw_bars(&bars, WIDTH, 0.42);
    let unit = bars.unit();
    let bottom = drawn.height - 24.0;
    let grid = drawn
        .x_ticks
        .iter()
        .map(|&(x, value)| {
            view! {
                <line class="grid" x1=x x2=x y1="8" y2=bottom />
                <text class="tick" x=x y=bottom + 16.0 text-anchor="middle">{value_text(unit, value)}</text>
            }
        })
        .collect_view();
    let marks = bars
        .bars
        .iter()
        .zip(&drawn.bars)
        .map(|((label, value), &(top, x0, x1))| {
            let middle = top + drawn.bar_height / 2.0 + 4.0;
            // The value at the bar's outer end: beyond the right end of a positive bar,
            // before the left end of a negative one.
            let (value_x, anchor) = if *value >= 0.0 {
                (x1 + 4.0, "start")
            } else {
                (x0 - 4.0, "end")
            };
            let value = value_text(unit, *value);
            view! {
                <g class="bar series series-0">
                    <text class="bar-label" x=drawn.left - 8.0 y=middle text-anchor="end">
                        {shortened(label)}
                        <title>{label.clone()}</title>
                    </text>
                    <rect x=x0 y=top width=(x1 - x0).max(1.0) height=drawn.bar_height>
                        <title>{format!("{label}: {value}")}</title>
                    </rect>
                    <text class="tick bar-value" x=value_x y=middle text-anchor=anchor>{value.clone()}</text>
                </g>
            }
        })
        .collect_view();
    let title = bars.title();
    let definition = metric::metric(&bars.metric)
        .map(|m| m.definition)
        .unwrap_or_default();
    view! {
        <figure class="chart bar-chart" data-metric=bars.metric.clone() data-series-count=bars.bars.len()>
            <figcaption title=definition>{title.clone()}</figcaption>
            <svg viewBox=format!("0 0 {WIDTH} {}", drawn.height) role="img" aria-label=title>
                {grid}
                {marks}
            </svg>
        </figure>
    }
}
