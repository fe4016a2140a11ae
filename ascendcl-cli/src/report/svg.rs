//! A small SVG line chart, written by hand (no plotting dependency).

use std::fmt::Write;

/// One line of a chart.
#[derive(Debug, Clone)]
pub struct Line {
    /// Legend text.
    pub label: String,
    /// CSS colour.
    pub color: &'static str,
    /// Dashed or solid.
    pub dashed: bool,
    /// y values, equally spaced along x.
    pub values: Vec<f64>,
}

/// A chart of several lines sharing one x axis (0..=1 of each line's length).
pub fn line_chart(title: &str, x_label: &str, y_label: &str, lines: &[Line]) -> String {
    let (width, height, left, right, top, bottom) = (900.0, 420.0, 70.0, 250.0, 40.0, 50.0);
    let plot_w = width - left - right;
    let plot_h = height - top - bottom;
    let y_max = lines
        .iter()
        .flat_map(|l| l.values.iter().copied())
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.05;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{left}" y="24" font-size="15">{}</text>"#,
        escape(title)
    );
    // Axes and y grid.
    for i in 0..=5 {
        let y = top + plot_h - plot_h * f64::from(i) / 5.0;
        let value = y_max * f64::from(i) / 5.0;
        let _ = writeln!(
            svg,
            r##"<line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{value:.1}</text>"##,
            left + plot_w,
            left - 6.0,
            y + 4.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<line x1="{left}" y1="{top}" x2="{left}" y2="{:.1}" stroke="black"/><line x1="{left}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black"/>"#,
        top + plot_h,
        top + plot_h,
        left + plot_w,
        top + plot_h
    );
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        left + plot_w / 2.0,
        height - 12.0,
        escape(x_label)
    );
    let _ = writeln!(
        svg,
        r#"<text transform="translate(18,{:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        top + plot_h / 2.0,
        escape(y_label)
    );
    for (n, line) in lines.iter().enumerate() {
        let count = line.values.len().max(2) - 1;
        let points: Vec<String> = line
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                format!(
                    "{:.1},{:.1}",
                    left + plot_w * i as f64 / count as f64,
                    top + plot_h - plot_h * v / y_max
                )
            })
            .collect();
        let dash = if line.dashed {
            r#" stroke-dasharray="6,4""#
        } else {
            ""
        };
        let _ = writeln!(
            svg,
            r#"<polyline fill="none" stroke="{}" stroke-width="1.5"{dash} points="{}"/>"#,
            line.color,
            points.join(" ")
        );
        let y = top + 14.0 + 20.0 * n as f64;
        let x = left + plot_w + 14.0;
        let _ = writeln!(
            svg,
            r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{}" stroke-width="2"{dash}/><text x="{:.1}" y="{:.1}">{}</text>"#,
            x + 24.0,
            line.color,
            x + 30.0,
            y + 4.0,
            escape(&line.label)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_has_one_polyline_per_line_and_escapes_labels() {
        let lines = [
            Line {
                label: "live <bytes>".into(),
                color: "black",
                dashed: true,
                values: vec![0.0, 1.0, 2.0],
            },
            Line {
                label: "reserved".into(),
                color: "red",
                dashed: false,
                values: vec![1.0, 2.0, 3.0],
            },
        ];
        let svg = line_chart("t", "x", "y", &lines);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("live &lt;bytes&gt;"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    }
}
