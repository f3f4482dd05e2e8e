//! ONNX `If` nodes whose condition is known once the model's inputs are fixed, inlined.
//!
//! Silero VAD's ONNX file branches on its `sr` input (16 kHz or 8 kHz) and, inside, on tensor
//! ranks (an `Unsqueeze` in one branch, an `Identity` in the other). Both conditions are
//! constants once the rate and the window's shape are fixed, but tract-onnx 0.23 only knows
//! `If` as a run-time choice whose two branches must give outputs of one shape, which Silero's
//! do not (tract issues #1029 and #1062; silero-vad issue #728). [`register`] replaces tract's
//! `If` parser with [`ConstIf`]: during analysis only the branch the condition picks is
//! analysed, and translation to tract's typed model wires that branch in place of the node, so
//! the optimised plan has no branch at all. A condition still unknown at translation is an
//! error naming the node.

use tract_onnx::model::{Onnx, ParseResult, ParsingContext};
use tract_onnx::pb::NodeProto;
use tract_onnx::tract_hir::internal::*;

/// Makes `onnx` parse `If` nodes as [`ConstIf`].
pub fn register(onnx: &mut Onnx) {
    onnx.op_register.insert("If", parse_if);
}

fn parse_if(
    ctx: &ParsingContext,
    node: &NodeProto,
) -> TractResult<(Box<dyn InferenceOp>, Vec<String>)> {
    let then_graph = node.get_attr("then_branch")?;
    let else_graph = node.get_attr("else_branch")?;
    let ParseResult {
        model: then_body,
        unresolved_inputs: then_names,
        ..
    } = ctx.parse_graph(then_graph)?;
    let ParseResult {
        model: else_body,
        unresolved_inputs: else_names,
        ..
    } = ctx.parse_graph(else_graph)?;
    // The node's inputs: the condition, then every name either branch reads from outside it,
    // once each, in order (as tract-onnx's own parser lays them out).
    let mut outer: Vec<String> = then_names.iter().chain(&else_names).cloned().collect();
    outer.sort();
    outer.dedup();
    let position = |name: &String| outer.iter().position(|o| o == name).map(|p| p + 1);
    let then_map = then_names.iter().filter_map(position).collect();
    let else_map = else_names.iter().filter_map(position).collect();
    let op = ConstIf {
        then_body,
        then_map,
        else_body,
        else_map,
    };
    Ok((Box::new(op), outer))
}

/// An ONNX `If` resolved while the model is analysed.
#[derive(Debug, Clone)]
pub struct ConstIf {
    then_body: InferenceModel,
    /// For each input of `then_body`, the node's input that feeds it.
    then_map: Vec<usize>,
    else_body: InferenceModel,
    else_map: Vec<usize>,
}

impl ConstIf {
    fn branch(&self, cond: bool) -> (&InferenceModel, &[usize]) {
        if cond {
            (&self.then_body, &self.then_map)
        } else {
            (&self.else_body, &self.else_map)
        }
    }
}

impl PartialEq for ConstIf {
    fn eq(&self, _: &Self) -> bool {
        false
    }
}

impl Eq for ConstIf {}

impl Op for ConstIf {
    fn name(&self) -> StaticName {
        "If".into()
    }

    fn as_typed(&self) -> Option<&dyn TypedOp> {
        None
    }
}

impl EvalOp for ConstIf {
    fn eval_out_of_plan(&self, inputs: TVec<TValue>) -> TractResult<Option<TVec<TValue>>> {
        Ok(Some(EvalOp::eval(
            self,
            &EvalContext::out_of_plan(),
            inputs,
        )?))
    }

    fn eval(&self, _ctx: &EvalContext, inputs: TVec<TValue>) -> TractResult<TVec<TValue>> {
        let cond = inputs[0].cast_to_scalar::<bool>()?;
        let (body, map) = self.branch(cond);
        let inputs: TVec<TValue> = map.iter().map(|&ix| inputs[ix].clone()).collect();
        body.clone().into_runnable()?.run(inputs)
    }
}

impl InferenceOp for ConstIf {
    fn infer_facts(
        &mut self,
        inputs: TVec<&InferenceFact>,
        outputs: TVec<&InferenceFact>,
        observed: TVec<&InferenceFact>,
    ) -> TractResult<(
        TVec<InferenceFact>,
        TVec<InferenceFact>,
        TVec<InferenceFact>,
    )> {
        let mut inputs: TVec<InferenceFact> = inputs.into_iter().cloned().collect();
        let mut outputs: TVec<InferenceFact> = outputs.into_iter().cloned().collect();
        inputs[0]
            .datum_type
            .unify_with(&bool::datum_type().into())?;
        // Until the condition is known, nothing about the outputs is: the branches disagree.
        if let Some(cond) = inputs[0].value.concretize() {
            let cond = cond.cast_to_scalar::<bool>()?;
            let (body, map) = if cond {
                (&mut self.then_body, &self.then_map)
            } else {
                (&mut self.else_body, &self.else_map)
            };
            loop {
                let mut changed = false;
                for (body_ix, outer_ix) in map.iter().enumerate() {
                    changed |= body
                        .input_fact_mut(body_ix)?
                        .unify_with_mut(&mut inputs[*outer_ix])?;
                }
                for ix in 0..body.output_outlets()?.len() {
                    changed |= body.output_fact_mut(ix)?.unify_with_mut(&mut outputs[ix])?;
                }
                changed |= body.analyse(false)?;
                if !changed {
                    break;
                }
            }
        }
        Ok((inputs, outputs, observed.into_iter().cloned().collect()))
    }

    fn nboutputs(&self) -> TractResult<usize> {
        let (then_n, else_n) = (self.then_body.outputs.len(), self.else_body.outputs.len());
        ensure!(
            then_n == else_n,
            "an If whose branches give {then_n} and {else_n} outputs"
        );
        Ok(then_n)
    }

    fn as_op(&self) -> &dyn Op {
        self
    }

    fn as_op_mut(&mut self) -> &mut dyn Op {
        self
    }

    fn to_typed(
        &self,
        source: &InferenceModel,
        node: &InferenceNode,
        target: &mut TypedModel,
        mapping: &HashMap<OutletId, OutletId>,
    ) -> TractResult<TVec<OutletId>> {
        // Known in the analysed facts, or (once tract has folded it) as a constant of the
        // typed model being built.
        let cond = source
            .outlet_fact(node.inputs[0])?
            .value
            .concretize()
            .or_else(|| {
                let fact = target.outlet_fact(mapping[&node.inputs[0]]).ok()?;
                fact.konst.clone()
            })
            .with_context(|| {
                format!(
                    "the If node {:?} has a condition only known at run time",
                    node.name
                )
            })?;
        let (body, map) = self.branch(cond.cast_to_scalar::<bool>()?);
        let body = body.clone().into_typed()?;
        let mut wired: HashMap<OutletId, OutletId> = HashMap::default();
        let body_inputs = body.input_outlets()?;
        for (outlet, outer_ix) in body_inputs.iter().zip(map) {
            wired.insert(*outlet, mapping[&node.inputs[*outer_ix]]);
        }
        for id in body.eval_order()? {
            if body_inputs.iter().any(|o| o.node == id) {
                continue;
            }
            let inner = body.node(id);
            let ins: TVec<OutletId> = inner.inputs.iter().map(|o| wired[o]).collect();
            let outs = target.wire_node(
                format!("{}.{}", node.name, inner.name),
                inner.op.clone(),
                &ins,
            )?;
            for (slot, outlet) in outs.into_iter().enumerate() {
                wired.insert(OutletId::new(id, slot), outlet);
            }
        }
        body.output_outlets()?
            .iter()
            .map(|o| {
                wired
                    .get(o)
                    .copied()
                    .with_context(|| format!("an output of the If node {:?}", node.name))
            })
            .collect()
    }
}
