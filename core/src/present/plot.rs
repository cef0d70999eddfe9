//! Charts drawn with plotters as SVG text: [`chart`](super::chart)'s line and bar charts, themed by class, each value exact on hover.
//!
//! Plotters lays out the axes, ticks, grid lines and marks into a `String`
//! ([`SVGBackend::with_string`]: no file, no clock, no I/O), so the browser and
//! `wheelwright score --plots` draw the same bytes from the same data. Three things the
//! pages need that plotters does not write are added to its output here, a line at a time
//! (its SVG backend writes one element per line):
//! - **Exact values on hover.** Plotters writes no `<title>`; every point and bar gets one
//!   ("GLM, T1: 61.7%"), which browsers show on hover and screen readers read.
//! - **Dark and light styles.** Plotters writes literal colours. Everything is drawn in
//!   sentinel colours (`#FE00..` for the frame, `#FE80..` for series), replaced here by
//!   `currentColor` and a class (`tick`, `grid`, `axis`, `bar-label`) or a series group
//!   (`<g class="series series-N" data-series=NAME>`); the app's stylesheet colours those
//!   classes for both schemes, and a standalone file carries its own `<style>` with a
//!   `prefers-color-scheme: dark` block.
//! - **Legends.** Plotters' legend box sits inside the plot area, over the lines, and sizes
//!   itself by measuring text. A page keeps its HTML legend (a list that wraps to the
//!   page's width); a file gets one series per line below the plot, drawn with plotters'
//!   own elements.
//!
//! Nothing here makes plotters measure text (no caption, legend box or right-hand axis):
//! without the `ttf` feature it would guess natively and, in wasm32, add a `<span>` to the
//! page to measure it, so the chart would differ by platform and core would touch the DOM.
//! The table beside each chart on a page stays the fallback for anyone who cannot see it.

use std::collections::VecDeque;
use std::fmt::Write as _;

use plotters::coord::Shift;
use plotters::coord::combinators::WithKeyPoints;
use plotters::coord::types::RangedCoordi32;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::{Bars, Chart};
use crate::metric::Unit;

/// Where a chart is shown, which decides what the SVG itself must carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame {
    /// Inside a page: the page gives the title (a `<figcaption>`), the legend and the
    /// colours (its stylesheet).
    Page,
    /// A file of its own (`wheelwright score --plots`): the title above the plot, the
    /// legend below it and a `<style>` for light and dark.
    File,
}

/// A chart that plotters could not draw (its SVG backend writes to a `String`, so in
/// practice never).
#[derive(Debug, thiserror::Error)]
#[error("the chart could not be drawn: {0}")]
pub struct PlotError(String);

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        PlotError(e.to_string())
    }
}

/// A value with its unit's suffix, as a tick label, a bar's value or a hover text:
/// whole numbers without decimals, values under 1 with three (correlations and small
/// shares), the rest with one.
pub fn value_text(unit: Unit, value: f64) -> String {
    let text = if value.fract() == 0.0 {
        format!("{value:.0}")
    } else if value.abs() < 1.0 {
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

/// A bar's label cut to what fits beside the bars (its bar's `<title>` has it whole).
fn shortened(label: &str) -> String {
    const FITS: usize = 34;
    if label.chars().count() <= FITS {
        label.to_owned()
    } else {
        let cut: String = label.chars().take(FITS - 1).collect();
        format!("{}…", cut.trim_end())
    }
}

/// The frame's sentinel colours and the class each becomes.
const TICK: RGBColor = RGBColor(0xFE, 0x00, 0x01);
const GRID: RGBColor = RGBColor(0xFE, 0x00, 0x02);
const AXIS: RGBColor = RGBColor(0xFE, 0x00, 0x03);
const LABEL: RGBColor = RGBColor(0xFE, 0x00, 0x04);
const ROLES: [(&str, &str); 4] = [
    ("FE0001", "tick"),
    ("FE0002", "grid"),
    ("FE0003", "axis"),
    ("FE0004", "bar-label"),
];

/// Series `i`'s sentinel colour: `#FE80..` and up, the index in the low 15 bits.
fn series_colour(i: usize) -> RGBColor {
    RGBColor(0xFE, 0x80 | ((i >> 8) & 0x7F) as u8, i as u8)
}

/// The series index of a line of plotters' SVG drawn in a series colour.
fn series_of(line: &str) -> Option<usize> {
    let at = line.find("=\"#FE")? + 5;
    let hex = line.get(at..at + 4)?;
    let high = u8::from_str_radix(&hex[..2], 16).ok()?;
    let low = u8::from_str_radix(&hex[2..], 16).ok()?;
    (high & 0x80 != 0).then(|| (usize::from(high & 0x7F) << 8) | usize::from(low))
}

/// Tick labels' size in plotters' units (it writes `font-size` as size / 1.24, about
/// 11 px, the size the page's stylesheet gives them too).
const TICK_SIZE: f64 = 13.5;

/// Room above a file's plot for its title, and per line of its legend below.
const TITLE_ROOM: u32 = 30;
const LEGEND_LINE: u32 = 18;

/// The y axis of a line chart: 0 to 100% for rates (a 2-point change looks like one, and
/// a series of zeros has an axis), else from zero (or, for values far from zero, below
/// the lowest) to a round number above the highest.
fn y_range(chart: &Chart) -> (f64, f64) {
    let values = chart.series.iter().flat_map(|s| s.values.iter().flatten());
    let low = values.clone().copied().fold(f64::INFINITY, f64::min);
    let high = values.copied().fold(f64::NEG_INFINITY, f64::max);
    if !low.is_finite() || (chart.unit() == Unit::Percent && low >= 0.0 && high <= 100.0) {
        return (0.0, 100.0);
    }
    let from = low.min(0.0).max(low - (high - low));
    let from = if from < 0.0 { -round_up(-from) } else { from };
    if high > from {
        (from, round_up(high - from) + from)
    } else {
        (from - 1.0, from + 1.0)
    }
}

/// The smallest round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten)
/// at or above `x` (> 0), so the axis ends on a labelled value.
fn round_up(x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let power = 10f64.powf(x.log10().floor());
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|r| *r >= x * (1.0 - 1e-9))
        .unwrap_or(10.0 * power)
}

/// `n` positions along an axis, each labelled at the middle of its slot: counted in half
/// slots (slot `i` is 2i..2i+2, its middle 2i+1) because plotters formats labels only on
/// integer axes once it is told where they go.
fn slots(n: usize) -> WithKeyPoints<RangedCoordi32> {
    let n = n.max(1) as i32;
    (0..2 * n).with_key_points((0..n).map(middle).collect())
}

/// The middle of slot `i` on a [`slots`] axis.
fn middle(i: i32) -> i32 {
    2 * i + 1
}

/// The slot a point of a [`slots`] axis is in.
fn slot(v: i32) -> usize {
    usize::try_from(v / 2).unwrap_or(0)
}

/// `chart` as a line chart `size` (width, height) of plot in SVG units: one line per
/// series, broken where a value is missing, a dot with its exact value at each value.
/// A [`Frame::File`] adds the title above and a legend line per series below.
///
/// ```
/// use wheelwright_core::present::chart::{Chart, Series};
/// use wheelwright_core::present::plot::{Frame, line_svg};
/// let chart = Chart {
///     metric: "reuse_repo".into(),
///     x_labels: vec!["T1".into(), "T5".into()],
///     series: vec![Series { name: "GLM".into(), values: vec![Some(61.7), Some(64.3)] }],
/// };
/// let svg = line_svg(&chart, (480, 260), Frame::Page).unwrap();
/// assert!(svg.contains("<title>GLM, T1: 61.7%</title>"));
/// assert!(svg.contains(r#"<g class="series series-0" data-series="GLM">"#));
/// ```
pub fn line_svg(chart: &Chart, size: (u32, u32), frame: Frame) -> Result<String, PlotError> {
    let unit = chart.unit();
    let (above, below) = match frame {
        Frame::Page => (0, 0),
        Frame::File => (TITLE_ROOM, LEGEND_LINE * chart.series.len() as u32 + 8),
    };
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (size.0, size.1 + above + below)).into_drawing_area();
        if frame == Frame::File {
            title(&root, &chart.title(), size.0)?;
            legend(&root, chart, size.1 + above)?;
        }
        let area = root.margin(above, below, 0, 0);
        let (low, high) = y_range(chart);
        let n = chart.x_labels.len();
        let mut plot = ChartBuilder::on(&area)
            .margin_top(12)
            .margin_right(16)
            .x_label_area_size(28)
            .y_label_area_size(48)
            .build_cartesian_2d(slots(n), low..high)?;
        let x_label = |v: &i32| chart.x_labels.get(slot(*v)).cloned().unwrap_or_default();
        let y_label = |v: &f64| value_text(unit, *v);
        plot.configure_mesh()
            .disable_x_mesh()
            .max_light_lines(0)
            .x_labels(n)
            .y_labels(6)
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .bold_line_style(GRID)
            .axis_style(AXIS)
            .label_style(("sans-serif", TICK_SIZE).into_font().color(&TICK))
            .draw()?;
        for (i, series) in chart.series.iter().enumerate() {
            let colour = series_colour(i);
            let points: Vec<Option<(i32, f64)>> = series
                .values
                .iter()
                .enumerate()
                .map(|(x, v)| v.map(|v| (middle(x as i32), v)))
                .collect();
            // Straight segments between the values, broken where one is missing (a value
            // alone is its dot).
            let runs = points
                .split(Option::is_none)
                .filter(|run| run.len() >= 2)
                .map(|run| run.iter().flatten().copied().collect::<Vec<_>>());
            plot.draw_series(runs.map(|run| PathElement::new(run, colour.stroke_width(2))))?;
            plot.draw_series(
                points
                    .iter()
                    .flatten()
                    .map(|p| Circle::new(*p, 4, colour.filled())),
            )?;
        }
        root.present()?;
    }
    let titles = chart
        .series
        .iter()
        .map(|s| {
            s.values
                .iter()
                .zip(&chart.x_labels)
                .filter_map(|(v, label)| {
                    v.map(|v| format!("{}, {label}: {}", s.name, value_text(unit, v)))
                })
                .collect()
        })
        .collect();
    let names: Vec<&str> = chart.series.iter().map(|s| s.name.as_str()).collect();
    Ok(themed(&svg, &chart.title(), &names, titles, frame))
}

/// `bars` as a horizontal bar chart `width` wide: each row's label on the left (in the
/// left `label_share` of the width), its bar from zero, its value at the bar's end.
///
/// ```
/// use wheelwright_core::present::chart::Bars;
/// use wheelwright_core::present::plot::{Frame, bars_svg};
/// let bars = Bars { metric: "pass".into(), bars: vec![("a".into(), 40.0), ("b".into(), -5.0)] };
/// let svg = bars_svg(&bars, 480, 0.42, Frame::Page).unwrap();
/// assert_eq!(svg.matches("<rect").count(), 2);
/// assert!(svg.contains("<title>b: -5%</title>"));
/// ```
pub fn bars_svg(
    bars: &Bars,
    width: u32,
    label_share: f64,
    frame: Frame,
) -> Result<String, PlotError> {
    /// Height of one bar's row, and the room below the bars for the tick labels.
    const ROW: u32 = 24;
    const AXIS_ROOM: u32 = 26;
    let unit = bars.unit();
    let n = bars.bars.len();
    let above = if frame == Frame::File { TITLE_ROOM } else { 0 };
    let height = 12 + ROW * n as u32 + AXIS_ROOM;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height + above)).into_drawing_area();
        if frame == Frame::File {
            title(&root, &bars.title(), width)?;
        }
        let area = root.margin(above, 0, 0, 0);
        // The axis includes zero, so a bar's length is its value.
        let low = bars.bars.iter().map(|(_, v)| *v).fold(0.0, f64::min);
        let high = bars.bars.iter().map(|(_, v)| *v).fold(0.0, f64::max);
        let low = if low < 0.0 { -round_up(-low) } else { 0.0 };
        let high = if high > 0.0 { round_up(high) } else { 0.0 };
        let high = if high > low { high } else { 1.0 };
        let mut plot = ChartBuilder::on(&area)
            .margin_top(12)
            .margin_right(48)
            .x_label_area_size(AXIS_ROOM)
            .y_label_area_size((f64::from(width) * label_share).round() as u32)
            .build_cartesian_2d(low..high, slots(n))?;
        // Row 0 at the top: row i is slot n - 1 - i.
        let row_of = |v: &i32| n.saturating_sub(slot(*v) + 1);
        let y_label = |v: &i32| {
            bars.bars
                .get(row_of(v))
                .map(|(label, _)| shortened(label))
                .unwrap_or_default()
        };
        let x_label = |v: &f64| value_text(unit, *v);
        plot.configure_mesh()
            .disable_y_mesh()
            .max_light_lines(0)
            .x_labels(5)
            .y_labels(n)
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .bold_line_style(GRID)
            .axis_style(AXIS)
            .label_style(("sans-serif", TICK_SIZE).into_font().color(&TICK))
            // Names, not numbers: the page sets them in its text face, in ink.
            .y_label_style(("sans-serif", TICK_SIZE).into_font().color(&LABEL))
            .draw()?;
        let row = |i: usize| middle((n - 1 - i) as i32);
        plot.draw_series(bars.bars.iter().enumerate().map(|(i, (_, v))| {
            // A bar fills its row but for a gap of 15% of the row above and below.
            let mut bar = Rectangle::new(
                [(0.0, row(i) - 1), (*v, row(i) + 1)],
                series_colour(0).filled(),
            );
            bar.set_margin(ROW * 15 / 100, ROW * 15 / 100, 0, 0);
            bar
        }))?;
        // Each value at its bar's outer end: right of a positive bar, left of a negative.
        plot.draw_series(bars.bars.iter().enumerate().map(|(i, (_, v))| {
            let (dx, h) = if *v >= 0.0 {
                (4, HPos::Left)
            } else {
                (-4, HPos::Right)
            };
            let style = ("sans-serif", TICK_SIZE)
                .into_font()
                .color(&TICK)
                .pos(Pos::new(h, VPos::Center));
            EmptyElement::at((*v, row(i))) + Text::new(value_text(unit, *v), (dx, 0), style)
        }))?;
        root.present()?;
    }
    let titles = vec![
        bars.bars
            .iter()
            .map(|(label, v)| format!("{label}: {}", value_text(unit, *v)))
            .collect(),
    ];
    Ok(themed(&svg, &bars.title(), &[&bars.title()], titles, frame))
}

/// A file's title, centred above the plot.
fn title<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    text: &str,
    width: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = ("sans-serif", 18.0)
        .into_font()
        .style(FontStyle::Bold)
        .color(&AXIS)
        .pos(Pos::new(HPos::Center, VPos::Center));
    root.draw(&Text::new(
        text,
        (width as i32 / 2, TITLE_ROOM as i32 / 2),
        style,
    ))
}

/// A file's legend from `top` down: a line per series, its colour's stroke and its name.
fn legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart,
    top: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (i, series) in chart.series.iter().enumerate() {
        let y = (top + 4 + LEGEND_LINE * i as u32 + LEGEND_LINE / 2) as i32;
        root.draw(&PathElement::new(
            vec![(52, y), (68, y)],
            series_colour(i).stroke_width(3),
        ))?;
        let style = ("sans-serif", TICK_SIZE)
            .into_font()
            .color(&TICK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        root.draw(&Text::new(series.name.as_str(), (74, y), style))?;
    }
    Ok(())
}

/// The colours a file's `<style>` gives the frame and the eight series, light then dark:
/// the page stylesheet's (`style/main.css`), which a file cannot link to.
const FILE_STYLE: &str = "<style>
svg.plot { background: #ffffff; font-family: sans-serif; }
.tick { fill: #5b6475; } .grid { stroke: #dde2ea; } .axis { stroke: #5b6475; }
text.axis, .bar-label { fill: #1d2330; stroke: none; }
.series-0 { color: #1f4fb2; } .series-1 { color: #b5541a; } .series-2 { color: #1f7a3f; } .series-3 { color: #9b2c8f; }
.series-4 { color: #0f7c86; } .series-5 { color: #8a6d00; } .series-6 { color: #b42318; } .series-7 { color: #4b5563; }
@media (prefers-color-scheme: dark) {
svg.plot { background: #171c25; }
.tick { fill: #a3acbb; } .grid { stroke: #2e3644; } .axis { stroke: #a3acbb; }
text.axis, .bar-label { fill: #e6e9ef; }
.series-0 { color: #8fb3ff; } .series-1 { color: #f0a56b; } .series-2 { color: #6fcf8e; } .series-3 { color: #e39ad9; }
.series-4 { color: #6fd3dc; } .series-5 { color: #e8cc5a; } .series-6 { color: #f28b82; } .series-7 { color: #c0c7d2; }
}
</style>
";

/// Plotters' SVG made themable and hoverable: the root named for screen readers (`label`),
/// sentinel colours replaced by `currentColor` and classes, each series' elements in one
/// `<g>` named after it (`names`), and each of its dots or bars given its next `titles`
/// entry. A file also gets its `<style>`.
fn themed(
    svg: &str,
    label: &str,
    names: &[&str],
    mut titles: Vec<VecDeque<String>>,
    frame: Frame,
) -> String {
    let mut out = String::with_capacity(svg.len() + svg.len() / 3);
    let mut open: Option<usize> = None;
    let mut drawn = std::collections::BTreeSet::new();
    for line in svg.lines() {
        if let Some(rest) = line.strip_prefix("<svg ") {
            let _ = writeln!(
                out,
                "<svg class=\"plot\" role=\"img\" aria-label=\"{}\" {rest}",
                escaped(label)
            );
            if frame == Frame::File {
                out.push_str(FILE_STYLE);
            }
            continue;
        }
        let series = series_of(line);
        if series != open {
            if open.is_some() {
                out.push_str("</g>\n");
            }
            if let Some(i) = series {
                group(&mut out, i, names);
                drawn.insert(i);
            }
            open = series;
        }
        if line == "</svg>" {
            // A series with no value drew nothing, but is still a series of the chart.
            for i in (0..names.len()).filter(|i| !drawn.contains(i)) {
                group(&mut out, i, names);
                out.push_str("</g>\n");
            }
        }
        let mut line = line.to_owned();
        for (colour, class) in ROLES {
            line = line.replace(
                &format!("\"#{colour}\""),
                &format!("\"currentColor\" class=\"{class}\""),
            );
        }
        if let Some(i) = series {
            let at = line.find("=\"#FE").map_or(0, |at| at + 1);
            line.replace_range(at..at + 9, "\"currentColor\"");
            let tag = ["circle", "rect"]
                .into_iter()
                .find(|tag| line.starts_with(&format!("<{tag} ")));
            if let (Some(tag), Some(open)) = (tag, line.strip_suffix("/>"))
                && let Some(title) = titles.get_mut(i).and_then(VecDeque::pop_front)
            {
                line = format!("{open}><title>{}</title></{tag}>", escaped(&title));
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Opens series `i`'s group, named after it (`names`).
fn group(out: &mut String, i: usize, names: &[&str]) {
    let name = names.get(i).copied().unwrap_or_default();
    let _ = writeln!(
        out,
        "<g class=\"series series-{}\" data-series=\"{}\">",
        i % 8,
        escaped(name)
    );
}

/// `text` safe inside an XML attribute or element.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::present::chart::Series;

    fn chart(metric: &str, series: &[(&str, &[Option<f64>])]) -> Chart {
        Chart {
            metric: metric.to_owned(),
            x_labels: vec!["T1".to_owned(), "T2".to_owned(), "T5".to_owned()],
            series: series
                .iter()
                .map(|(name, values)| Series {
                    name: (*name).to_owned(),
                    values: values.to_vec(),
                })
                .collect(),
        }
    }

    /// The numbers in the `text` elements of class `class`, in document order.
    fn texts(svg: &str, class: &str) -> Vec<String> {
        let mut lines = svg.lines();
        let mut found = Vec::new();
        while let Some(line) = lines.next() {
            if line.starts_with("<text ") && line.contains(&format!("class=\"{class}\"")) {
                found.push(lines.next().unwrap_or_default().to_owned());
            }
        }
        found
    }

    #[test]
    fn a_line_chart_has_its_axes_one_group_per_series_and_every_value_on_hover() {
        let chart = chart(
            "reuse_repo",
            &[
                ("a & b", &[Some(0.0), None, Some(100.0)]),
                ("c", &[Some(50.0), Some(61.7), Some(64.3)]),
                ("none", &[None, None, None]),
            ],
        );
        let svg = line_svg(&chart, (480, 260), Frame::Page).unwrap();
        let ticks = texts(&svg, "tick");
        // The positions along x, and a rate's axis over its whole scale.
        for label in ["T1", "T2", "T5", "0%", "100%"] {
            assert!(ticks.iter().any(|t| t == label), "{label} in {ticks:?}");
        }
        // A series without values still has its (empty) group.
        assert_eq!(svg.matches("<g class=\"series ").count(), 3);
        assert!(svg.contains("<g class=\"series series-2\" data-series=\"none\">\n</g>"));
        assert!(svg.contains(r#"<g class="series series-0" data-series="a &amp; b">"#));
        // The gap breaks the line: a's values are two dots, c's one line.
        let group = |i: usize| {
            let at = svg.find(&format!("series-{i}\"")).unwrap();
            &svg[at..at + svg[at..].find("</g>").unwrap()]
        };
        assert_eq!(group(0).matches("<polyline").count(), 0, "{svg}");
        assert_eq!(group(1).matches("<polyline").count(), 1, "{svg}");
        let titles: Vec<&str> = svg
            .match_indices("<title>")
            .map(|(at, _)| &svg[at + 7..at + svg[at..].find("</title>").unwrap()])
            .collect();
        assert_eq!(
            titles,
            [
                "a &amp; b, T1: 0%",
                "a &amp; b, T5: 100%",
                "c, T1: 50%",
                "c, T2: 61.7%",
                "c, T5: 64.3%"
            ]
        );
        // No literal colour is left for a theme to fight with.
        assert!(!svg.contains("#FE"), "{svg}");
        assert!(
            svg.starts_with("<svg class=\"plot\" role=\"img\" aria-label=\"reuse repo: T1 → T5\"")
        );
        assert!(!svg.contains("<style>"), "a page's stylesheet themes it");
    }

    #[test]
    fn a_count_axis_follows_its_values_and_ends_on_a_round_number() {
        let files = chart("files", &[("a", &[Some(2.0), Some(7.0), None])]);
        assert_eq!(y_range(&files), (0.0, 8.0));
        let flat = chart("c_dup", &[("a", &[Some(0.0), Some(0.0), None])]);
        assert_eq!(y_range(&flat), (0.0, 100.0), "a rate of zeros has an axis");
        let far = chart("lines", &[("a", &[Some(1000.0), Some(1010.0), None])]);
        let (low, high) = y_range(&far);
        assert!(
            low > 900.0 && (1010.0..1100.0).contains(&high),
            "{low}..{high}"
        );
        assert_eq!(round_up(64.3), 80.0);
        assert_eq!(round_up(0.9), 1.0);
    }

    #[test]
    fn a_file_has_its_title_legend_and_both_themes() {
        let chart = chart("reuse_repo", &[("run 1", &[Some(10.0), Some(20.0), None])]);
        let svg = line_svg(&chart, (640, 360), Frame::File).unwrap();
        assert!(svg.contains("<style>") && svg.contains("prefers-color-scheme: dark"));
        assert!(texts(&svg, "axis").contains(&"reuse repo: T1 → T5".to_owned()));
        assert!(
            texts(&svg, "tick").contains(&"run 1".to_owned()),
            "the legend"
        );
        assert!(svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn bars_run_from_zero_either_way_with_their_values() {
        let bars = Bars {
            metric: "files".to_owned(),
            bars: vec![("b".to_owned(), 20.0), ("c".to_owned(), -5.0)],
        };
        let svg = bars_svg(&bars, 480, 0.42, Frame::Page).unwrap();
        // Each bar's x and width: b starts where c ends (at zero); b is 4 times c.
        let rects: Vec<(f64, f64)> = svg
            .lines()
            .filter(|l| l.starts_with("<rect "))
            .map(|l| {
                let attr = |name: &str| {
                    let at = l.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                    l[at..at + l[at..].find('"').unwrap()]
                        .parse::<f64>()
                        .unwrap()
                };
                (attr("x"), attr("width"))
            })
            .collect();
        assert_eq!(rects.len(), 2);
        assert!(
            (rects[0].0 - (rects[1].0 + rects[1].1)).abs() <= 1.0,
            "{rects:?}"
        );
        assert!((rects[0].1 / rects[1].1 - 4.0).abs() < 0.2, "{rects:?}");
        let ticks = texts(&svg, "tick");
        for label in ["20", "-5", "0"] {
            assert!(ticks.iter().any(|t| t == label), "{label} in {ticks:?}");
        }
        // The rows' names (plotters writes them bottom up).
        assert_eq!(texts(&svg, "bar-label"), ["c", "b"]);
        assert!(svg.contains("<title>b: 20</title>") && svg.contains("<title>c: -5</title>"));
    }

    #[test]
    fn values_read_as_the_tables_show_them() {
        assert_eq!(value_text(Unit::Percent, 61.7), "61.7%");
        assert_eq!(value_text(Unit::Count, 0.25), "0.250");
        assert_eq!(value_text(Unit::Dollars, 3.0), "$3");
        assert_eq!(shortened(&"x".repeat(40)).chars().count(), 34);
    }
}
