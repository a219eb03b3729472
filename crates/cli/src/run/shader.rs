//! `tangle run` in shader mode: one dispatch of a single shader with its buffers, push
//! constants and specialization constants from the command line, the buffers written back as
//! hex or JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;

use tangle_interp::{Config, Interpreter, Outcome};
use tangle_run::lowered::Dispatch;
use tangle_run::Device;

use super::{usage, OutFormat, RunArgs, RunKind};
use crate::input::{self, InputKind, ReadOptions};
use crate::EXIT_INVALID;

/// Shader mode: one dispatch with buffers from the command line.
pub(super) fn shader(
    args: &RunArgs,
    kind: RunKind,
    device: Device,
    mut config: Config,
) -> ExitCode {
    let input = &args.inputs[0];
    let read_kind = match kind {
        RunKind::Amber => unreachable!("scripts are handled before"),
        RunKind::Spv => InputKind::Spv,
        RunKind::Spvasm => InputKind::Spvasm,
        RunKind::Glsl => InputKind::Glsl,
        RunKind::Ir => InputKind::Ir,
    };
    let (module, origins) = match input::load_with_origins(
        input,
        &ReadOptions {
            kind: Some(read_kind),
            target_env: args.target_env.clone(),
        },
    ) {
        Ok(m) => m,
        Err(e) => return usage(e.to_string()),
    };
    if let Err(errors) = tangle_ir::verify::verify(&module) {
        for e in &errors.0 {
            eprintln!("{}: error: {e}", input.display());
        }
        return ExitCode::from(EXIT_INVALID);
    }
    let setup = (|| -> Result<_, String> {
        config.workgroups = parse_triple(&args.workgroups)?;
        for s in &args.specs {
            let (id, value) = s
                .split_once('=')
                .ok_or_else(|| format!("--spec {s:?}: expected ID=VALUE"))?;
            let id: u32 = id
                .parse()
                .map_err(|_| format!("--spec {s:?}: {id:?} is not a SpecId"))?;
            let bits = tangle_run::spec_value_bits(&module, id, value)?;
            config.spec_constants.insert(id, bits);
        }
        let mut buffers = BTreeMap::new();
        for b in &args.buffers {
            let (key, bytes) = parse_buffer(b)?;
            if buffers.insert(key, bytes).is_some() {
                return Err(format!(
                    "--buffer {b:?}: set {} binding {} given twice",
                    key.0, key.1
                ));
            }
        }
        for used in tangle_run::resources::used_descriptors(&module) {
            if !buffers.contains_key(&(used.set, used.binding)) {
                return Err(format!(
                    "the shader uses the {used}: give it with --buffer {}:{}=FILE|SIZE",
                    used.set, used.binding
                ));
            }
        }
        if args.push_constants.is_none() && tangle_run::resources::uses_push_constants(&module) {
            return Err(
                "the shader reads push constants: give them with --push-constants FILE".into(),
            );
        }
        let push = match &args.push_constants {
            Some(p) => {
                let bytes = std::fs::read(p)
                    .map_err(|e| format!("--push-constants {}: {e}", p.display()))?;
                device
                    .check_push_constants(bytes.len())
                    .map_err(|e| e.to_string())?;
                Some(bytes)
            }
            None => None,
        };
        config.subgroup_size = device.subgroup_size;
        config.record_trace = args.trace;
        let interp =
            Interpreter::new(&module, &args.entry, config.clone()).map_err(|e| e.to_string())?;
        let local_size = interp.local_size();
        device
            .check_dispatch(local_size, config.workgroups)
            .map_err(|e| e.to_string())?;
        Ok((buffers, push, local_size, interp))
    })();
    let (buffers, push, local_size, mut interp) = match setup {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let lowered = args.lowered().ok().flatten();
    let dispatch = Dispatch {
        buffers: match &lowered {
            Some(_) => buffers
                .iter()
                .map(|(k, bytes)| (*k, (bytes.clone(), None)))
                .collect(),
            None => BTreeMap::new(),
        },
        push_constants: push.clone(),
        views: BTreeMap::new(),
    };
    for ((set, binding), bytes) in buffers {
        interp.bind_buffer(set, binding, bytes);
    }
    if let Some(p) = push {
        interp.set_push_constants(p);
    }
    let outcome = match interp.run() {
        Ok(o) => o,
        Err(
            e @ (tangle_interp::InterpError::Config(_)
            | tangle_interp::InterpError::Unsupported { .. }),
        ) => return usage(tangle_run::script::run_error_at(&e, &origins)),
        Err(e) => {
            eprintln!(
                "{}: {}",
                input.display(),
                tangle_run::script::run_error_at(&e, &origins)
            );
            return ExitCode::from(EXIT_INVALID);
        }
    };
    let mut status = ExitCode::SUCCESS;
    if let Some(engine) = &lowered {
        match tangle_run::lowered::check(&module, &args.entry, &config, &dispatch, &outcome, engine)
        {
            Ok(stats) => {
                eprintln!(
                    "{}: {}: {} policies agree with the reference",
                    input.display(),
                    engine.engine,
                    stats.len()
                );
                if args.stats {
                    for line in tangle_run::lowered::stats_lines(&stats) {
                        eprintln!("  {line}");
                    }
                }
            }
            Err(m) => {
                eprintln!("{}: {m}", input.display());
                status = ExitCode::from(EXIT_INVALID);
            }
        }
    }
    let text = match args.format {
        OutFormat::Hex => hex_report(&outcome, &config, local_size),
        OutFormat::Json => json_report(&outcome, &config, local_size),
    };
    let written = match &args.output {
        Some(p) => std::fs::write(p, text),
        None => {
            print!("{text}");
            Ok(())
        }
    };
    if let Err(e) = written {
        return usage(format!("cannot write output: {e}"));
    }
    status
}

/// `x,y,z` with each at least 1.
fn parse_triple(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').collect();
    let bad = || format!("--workgroups {text:?}: expected X,Y,Z (each at least 1)");
    let [x, y, z] = parts.as_slice() else {
        return Err(bad());
    };
    let n = |s: &str| {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(bad)
    };
    Ok([n(x)?, n(y)?, n(z)?])
}

/// `SET:BINDING=FILE|SIZE`.
fn parse_buffer(text: &str) -> Result<((u32, u32), Vec<u8>), String> {
    let bad = |why: &str| format!("--buffer {text:?}: {why}");
    let (key, source) = text
        .split_once('=')
        .ok_or_else(|| bad("expected SET:BINDING=FILE|SIZE"))?;
    let (set, binding) = key
        .split_once(':')
        .ok_or_else(|| bad("expected SET:BINDING before ="))?;
    let set: u32 = set.parse().map_err(|_| bad("the set is not a number"))?;
    let binding: u32 = binding
        .parse()
        .map_err(|_| bad("the binding is not a number"))?;
    let bytes = match source.parse::<usize>() {
        Ok(size) => vec![0; size],
        Err(_) => std::fs::read(source).map_err(|e| bad(&e.to_string()))?,
    };
    Ok(((set, binding), bytes))
}

fn hex_report(outcome: &Outcome, config: &Config, local_size: [u32; 3]) -> String {
    let mut s = String::new();
    let [gx, gy, gz] = config.workgroups;
    let [lx, ly, lz] = local_size;
    let _ = writeln!(
        s,
        "# dispatch {gx}x{gy}x{gz} of {lx}x{ly}x{lz}, subgroup size {}, {} lane-instructions",
        config.subgroup_size, outcome.lane_steps
    );
    for ((set, binding), bytes) in &outcome.buffers {
        let undefined = outcome.undefined.get(&(*set, *binding));
        let _ = write!(s, "# set {set} binding {binding}: {} bytes", bytes.len());
        if let Some(mask) = undefined {
            let n = mask.iter().filter(|u| **u).count();
            let _ = write!(s, ", {n} undefined (??)");
        }
        s.push('\n');
        for (row, chunk) in bytes.chunks(16).enumerate() {
            let _ = write!(s, "{:08x}:", row * 16);
            for (i, b) in chunk.iter().enumerate() {
                let gap = if i == 8 { "  " } else { " " };
                if undefined.is_some_and(|m| m[row * 16 + i]) {
                    let _ = write!(s, "{gap}??");
                } else {
                    let _ = write!(s, "{gap}{b:02x}");
                }
            }
            s.push('\n');
        }
    }
    if config.record_trace {
        let _ = writeln!(s, "# trace: {} subgroup operations", outcome.trace.len());
        for t in &outcome.trace {
            let _ = writeln!(s, "{}", trace_line(t));
        }
    }
    s
}

fn json_report(outcome: &Outcome, config: &Config, local_size: [u32; 3]) -> String {
    let buffers: Vec<serde_json::Value> = outcome
        .buffers
        .iter()
        .map(|((set, binding), bytes)| {
            let undefined = outcome.undefined.get(&(*set, *binding));
            let is_undefined = |i: usize| undefined.is_some_and(|m| m[i]);
            let hex: String = bytes
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    if is_undefined(i) {
                        "??".to_string()
                    } else {
                        format!("{b:02x}")
                    }
                })
                .collect();
            let mut buffer = serde_json::json!({
                "set": set, "binding": binding, "size": bytes.len(), "hex": hex,
            });
            if undefined.is_some() {
                // Per byte, its value or null where the run left it undefined.
                buffer["bytes"] = bytes
                    .iter()
                    .enumerate()
                    .map(|(i, b)| {
                        if is_undefined(i) {
                            serde_json::Value::Null
                        } else {
                            serde_json::Value::from(*b)
                        }
                    })
                    .collect();
            }
            buffer
        })
        .collect();
    let mut report = serde_json::json!({
        "workgroups": config.workgroups,
        "local_size": local_size,
        "subgroup_size": config.subgroup_size,
        "steps": outcome.steps,
        "lane_steps": outcome.lane_steps,
        "buffers": buffers,
    });
    if config.record_trace {
        report["trace"] = outcome
            .trace
            .iter()
            .map(|t| {
                serde_json::json!({
                    "workgroup": t.workgroup, "subgroup": t.subgroup,
                    "function": t.func.to_string(), "instruction": t.inst.to_string(),
                    "mask": format!("{:#x}", t.mask),
                })
            })
            .collect();
    }
    let mut text = serde_json::to_string_pretty(&report).expect("JSON values serialize");
    text.push('\n');
    text
}

/// One trace entry as text: `workgroup x,y,z subgroup s f0 i12 mask 0xff`.
pub(super) fn trace_line(t: &tangle_interp::TraceEntry) -> String {
    let [x, y, z] = t.workgroup;
    format!(
        "workgroup {x},{y},{z} subgroup {} {} {} mask {:#x}",
        t.subgroup, t.func, t.inst, t.mask
    )
}
