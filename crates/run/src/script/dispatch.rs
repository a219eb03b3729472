//! One `RUN`: the pipeline's buffers bound, the dispatch run on the interpreter (and the
//! lowered and SASS engines when asked), the buffers written back.

use tangle_amber::Pos;
use tangle_interp::{InterpError, Interpreter};

use super::error::{error_origin, run_error_message};
use super::{module_key, Event, Flow, Runner, ScriptError, ScriptErrorKind};

impl Runner<'_> {
    /// One `RUN`: bind, dispatch, write the buffers back.
    pub(super) fn run(&mut self, name: &str, groups: [u32; 3], pos: Pos) -> Flow {
        let err = |kind| ScriptError::new(pos, kind);
        let pipeline = self
            .script
            .pipeline(name)
            .expect("the parser checks that run pipelines exist");
        let attach = &pipeline.attachments[0];
        let (module, origins) = &self.modules[&module_key(pipeline, &attach.shader)];
        let mut config = self.options.engine.clone();
        // The interpreter runs at least one workgroup; a zero count is handled below.
        config.workgroups = groups.map(|g| g.max(1));
        config.spec_constants = attach
            .specializations
            .iter()
            .map(|s| (s.id, s.bits))
            .collect();
        let interp_err = |e: InterpError| err(ScriptErrorKind::Interpreter(e));
        // Prepared once: the subgroup size the device picks from the workgroup size is set
        // on the prepared dispatch below (nothing prepared depends on it).
        let mut interp =
            Interpreter::new(module, &attach.entry_point, config.clone()).map_err(interp_err)?;
        let local_size = interp.local_size();
        let device = &self.options.device;
        let control = pipeline
            .subgroups
            .iter()
            .rev()
            .find(|s| s.shader == attach.shader);
        config.subgroup_size = device
            .subgroup_size(control, local_size, module.version >= (1, 6))
            .map_err(|e| err(e.into()))?;
        device
            .check_dispatch(local_size, groups)
            .map_err(|e| err(e.into()))?;
        let subgroup_size = config.subgroup_size;
        config.workgroups = groups;
        if groups.contains(&0) {
            // A dispatch of zero workgroups is valid Vulkan and runs nothing.
            self.report.events.push(Event::Ran {
                pos,
                pipeline: name.into(),
                groups,
                local_size,
                subgroup_size,
                steps: 0,
                lane_steps: 0,
                trace: Vec::new(),
                order_dependent: Vec::new(),
            });
            return Ok(true);
        }
        let lowered_config =
            (self.options.lowered.is_some() || self.options.sass.is_some()).then(|| config.clone());
        let mut dispatch = crate::lowered::Dispatch::default();
        interp
            .set_subgroup_size(subgroup_size)
            .map_err(interp_err)?;
        interp.set_workgroups(groups).map_err(interp_err)?;
        let plan = super::bindings::plan(self.script, pipeline, module, &self.buffers)?;
        for m in &plan.memories {
            let (set, binding) = m.key;
            let slice = self.buffers[&m.buffer][m.window.clone()].to_vec();
            let mask = self
                .undefined
                .get(&m.buffer)
                .map(|mask| &mask[m.window.clone()]);
            if lowered_config.is_some() {
                dispatch
                    .buffers
                    .insert(m.key, (slice.clone(), mask.map(<[bool]>::to_vec)));
            }
            match mask {
                Some(mask) => interp.bind_buffer_with_undefined(set, binding, slice, mask),
                None => interp.bind_buffer(set, binding, slice),
            }
        }
        for (&(set, binding), views) in &plan.views {
            interp.bind_views(set, binding, views.clone());
        }
        dispatch.views = plan.views.clone();
        if let Some(pc) = &pipeline.push_constant {
            interp.set_push_constants(self.buffers[pc].clone());
            dispatch.push_constants = Some(self.buffers[pc].clone());
        }
        match interp.run_once() {
            Ok(outcome) => {
                let lowered_event = match (&self.options.lowered, &lowered_config) {
                    (Some(engine), Some(config)) => Some(
                        match crate::lowered::check(
                            module,
                            &attach.entry_point,
                            config,
                            &dispatch,
                            &outcome,
                            engine,
                        ) {
                            Ok(stats) => Event::LoweredAgreed {
                                pos,
                                pipeline: name.into(),
                                stats,
                            },
                            Err(mismatch) => Event::LoweredDiffers {
                                pos,
                                pipeline: name.into(),
                                mismatch,
                            },
                        },
                    ),
                    _ => None,
                };
                let sass_event = match (&self.options.sass, &lowered_config) {
                    (Some(engine), Some(config)) => Some(
                        match crate::sass::check(
                            module,
                            &attach.entry_point,
                            name,
                            config,
                            &dispatch,
                            &outcome,
                            engine,
                        ) {
                            Ok(Ok(runs)) => Event::SassAgreed {
                                pos,
                                pipeline: name.into(),
                                runs,
                            },
                            Ok(Err(crate::sass::Refused(why))) => Event::SassRefused {
                                pos,
                                pipeline: name.into(),
                                why,
                            },
                            Err(mismatch) => Event::SassDiffers {
                                pos,
                                pipeline: name.into(),
                                mismatch,
                            },
                        },
                    ),
                    _ => None,
                };
                for m in &plan.memories {
                    self.write_back(m, &outcome);
                }
                self.report.events.push(Event::Ran {
                    pos,
                    pipeline: name.into(),
                    groups,
                    local_size,
                    subgroup_size,
                    steps: outcome.steps,
                    lane_steps: outcome.lane_steps,
                    order_dependent: outcome.order_dependent.keys().copied().collect(),
                    trace: outcome.trace,
                });
                self.report.events.extend(lowered_event);
                self.report.events.extend(sass_event);
                Ok(true)
            }
            Err(e @ (InterpError::Config(_) | InterpError::Unsupported { .. })) => {
                let origin = error_origin(&e, origins);
                Err(err(ScriptErrorKind::Pipeline(run_error_message(
                    &e,
                    origin.as_ref(),
                ))))
            }
            Err(error) => {
                let origin = error_origin(&error, origins);
                self.report.events.push(Event::RunFailed {
                    pos,
                    pipeline: name.into(),
                    error,
                    origin,
                });
                Ok(false)
            }
        }
    }

    /// Writes memory `m`'s bytes after the run back into its buffer, with the undefined
    /// bytes the run left there.
    fn write_back(&mut self, m: &super::bindings::Memory, outcome: &tangle_interp::Outcome) {
        let Some(bytes) = outcome.buffers.get(&m.key) else {
            return;
        };
        let window = &m.window;
        let whole = self
            .buffers
            .get_mut(&m.buffer)
            .expect("bound buffers exist");
        // The interpreter keeps a binding's size; copy what fits regardless.
        let n = bytes.len().min(window.len());
        whole[window.start..window.start + n].copy_from_slice(&bytes[..n]);
        // The undefined bytes of the window follow the run's; the rest stay.
        match outcome.undefined.get(&m.key) {
            Some(mask) => {
                let len = whole.len();
                let u = self
                    .undefined
                    .entry(m.buffer.clone())
                    .or_insert_with(|| vec![false; len]);
                u[window.start..window.start + n].copy_from_slice(&mask[..n]);
            }
            None => {
                if let Some(u) = self.undefined.get_mut(&m.buffer) {
                    u[window.start..window.start + n].fill(false);
                }
            }
        }
        // So do its bytes whose values came from the order of racing atomics.
        match outcome.order_dependent.get(&m.key) {
            Some(o) if o.valued.contains(&true) => {
                let len = whole.len();
                let u = self
                    .order_valued
                    .entry(m.buffer.clone())
                    .or_insert_with(|| vec![false; len]);
                u[window.start..window.start + n].copy_from_slice(&o.valued[..n]);
                self.order_origin.insert(
                    m.buffer.clone(),
                    format!(
                        "the first was written at {}; the first racing atomic is at {}",
                        o.marked_at, o.race_at
                    ),
                );
            }
            _ => {
                if let Some(u) = self.order_valued.get_mut(&m.buffer) {
                    u[window.start..window.start + n].fill(false);
                }
            }
        }
    }
}
