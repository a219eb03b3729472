//! The comparison's summary: per figure, the medians of both compilers, the geometric
//! mean of tangle / ptxas, and the worst and best rows; then the geometric means per SM.

use std::collections::BTreeMap;

use tangle_sass::Arch;

use super::{CostReport, CostRow};

/// A figure compared between the compilers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Compile time in microseconds.
    CompileTime,
    /// The cubin's register count.
    Registers,
    /// Static instructions.
    Instructions,
    /// Simulated cycles (rows where both runs agree with the reference only).
    Cycles,
}

impl Metric {
    /// Every figure, in the summary's order.
    pub const ALL: [Metric; 4] = [
        Metric::CompileTime,
        Metric::Registers,
        Metric::Instructions,
        Metric::Cycles,
    ];

    /// Its name in the summary.
    pub fn name(self) -> &'static str {
        match self {
            Metric::CompileTime => "compile µs",
            Metric::Registers => "registers",
            Metric::Instructions => "instructions",
            Metric::Cycles => "cycles",
        }
    }

    /// tangle's and ptxas's values in `row`, when the row has this figure.
    pub fn of(self, row: &CostRow) -> Option<(f64, f64)> {
        let (t, p) = (&row.tangle, &row.ptxas);
        match self {
            Metric::CompileTime => Some((t.micros, p.micros)),
            Metric::Registers => Some((t.registers as f64, p.registers as f64)),
            Metric::Instructions => Some((t.instructions as f64, p.instructions as f64)),
            Metric::Cycles => Some((t.cycles? as f64, p.cycles? as f64)),
        }
    }
}

/// One figure over a set of rows.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricSummary {
    /// The figure.
    pub metric: Metric,
    /// Rows with the figure and both values above zero (a ratio needs them).
    pub rows: usize,
    /// The median of tangle's values.
    pub median_tangle: f64,
    /// The median of ptxas's values.
    pub median_ptxas: f64,
    /// The geometric mean of tangle / ptxas.
    pub geomean_ratio: f64,
    /// The sum of tangle's values over the sum of ptxas's (weights large programs, where
    /// the geometric mean weights every row alike).
    pub sum_ratio: f64,
    /// The largest tangle / ptxas, with its seed and SM.
    pub worst: (f64, u64, Arch),
    /// The smallest tangle / ptxas, with its seed and SM.
    pub best: (f64, u64, Arch),
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// `metric` over `rows` (`None` when no row has it with both values above zero).
pub fn summarize<'a>(
    metric: Metric,
    rows: impl IntoIterator<Item = &'a CostRow>,
) -> Option<MetricSummary> {
    let pairs: Vec<(f64, f64, u64, Arch)> = rows
        .into_iter()
        .filter_map(|r| metric.of(r).map(|(t, p)| (t, p, r.seed, r.arch)))
        .filter(|&(t, p, _, _)| t > 0.0 && p > 0.0)
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let ratio = |&(t, p, s, a): &(f64, f64, u64, Arch)| (t / p, s, a);
    let ratios: Vec<(f64, u64, Arch)> = pairs.iter().map(ratio).collect();
    let log_mean = ratios.iter().map(|r| r.0.ln()).sum::<f64>() / ratios.len() as f64;
    let worst = *ratios
        .iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .expect("not empty");
    let best = *ratios
        .iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("not empty");
    Some(MetricSummary {
        metric,
        rows: pairs.len(),
        median_tangle: median(pairs.iter().map(|p| p.0).collect()),
        median_ptxas: median(pairs.iter().map(|p| p.1).collect()),
        geomean_ratio: log_mean.exp(),
        sum_ratio: pairs.iter().map(|p| p.0).sum::<f64>() / pairs.iter().map(|p| p.1).sum::<f64>(),
        worst,
        best,
    })
}

impl std::fmt::Display for MetricSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:<12} {:>5} rows  median tangle {:>9.1}  ptxas {:>9.1}  tangle/ptxas geomean \
             {:.3}  sums {:.3}  worst {:.3} (seed {} {})  best {:.3} (seed {} {})",
            self.metric.name(),
            self.rows,
            self.median_tangle,
            self.median_ptxas,
            self.geomean_ratio,
            self.sum_ratio,
            self.worst.0,
            self.worst.1,
            self.worst.2,
            self.best.0,
            self.best.1,
            self.best.2,
        )
    }
}

impl CostReport {
    /// Every figure over every row.
    pub fn summaries(&self) -> Vec<MetricSummary> {
        Metric::ALL
            .iter()
            .filter_map(|&m| summarize(m, &self.rows))
            .collect()
    }

    /// Per SM, the rows and the geometric means of tangle / ptxas of each figure (`None`
    /// where no row has it).
    pub fn per_arch(&self) -> Vec<(Arch, usize, Vec<Option<f64>>)> {
        let mut by: BTreeMap<Arch, Vec<&CostRow>> = BTreeMap::new();
        for r in &self.rows {
            by.entry(r.arch).or_default().push(r);
        }
        by.into_iter()
            .map(|(a, rows)| {
                let g = Metric::ALL
                    .iter()
                    .map(|&m| summarize(m, rows.iter().copied()).map(|s| s.geomean_ratio))
                    .collect();
                (a, rows.len(), g)
            })
            .collect()
    }
}

impl std::fmt::Display for CostReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let agree = self.rows.iter().filter(|r| r.status == "agree").count();
        writeln!(
            f,
            "cost: {} rows (program × SM), {} with both runs agreeing (cycles counted), {} \
             without a row, {} nvcc front-end and {} ptxas calls, {:.1} s",
            self.rows.len(),
            agree,
            self.missing.len(),
            self.nvcc_calls,
            self.ptxas_calls,
            self.elapsed.as_secs_f64(),
        )?;
        let startup: Vec<String> = self
            .ptxas_startup
            .iter()
            .map(|(a, d)| format!("{a} {:.0}", d.as_secs_f64() * 1e6))
            .collect();
        writeln!(f, "ptxas on an empty module (µs): {}", startup.join(", "))?;
        for s in self.summaries() {
            writeln!(f, "{s}")?;
        }
        write!(
            f,
            "per SM, tangle/ptxas geomean (compile, registers, instructions, cycles):"
        )?;
        for (a, n, g) in self.per_arch() {
            let g: Vec<String> = g
                .iter()
                .map(|x| x.map_or_else(|| "-".into(), |v| format!("{v:.3}")))
                .collect();
            write!(f, "\n  {a}: {n} rows: {}", g.join(", "))?;
        }
        Ok(())
    }
}
