// The plan of a soak: the operations and the faults of every step, a pure function of (seed,
// steps, topology). A failing seed is reproduced by running the same three again; the unit tests
// hold this function to that.
import { initialModel, type ClusterModel, type Topology } from './cluster-model.js';
import { drawFault, FAULT_RATE, type PlannedFault } from './faults.js';
import { modelAfter, OPERATIONS, type OperationSpec, type PlannedOperation } from './operations.js';
import { mulberry32, type Random } from './prng.js';

export interface PlannedStep {
  /** From 1. */
  readonly step: number;
  readonly operation: PlannedOperation;
  readonly fault?: PlannedFault;
  /** The model before the step, which the step's commands start from. */
  readonly before: ClusterModel;
}

const TOPOLOGY_SALT = 0x9e3779b9;

function pickWeighted(random: Random, specs: readonly OperationSpec[]): OperationSpec {
  const total = specs.reduce((sum, s) => sum + s.weight, 0);
  let x = random.next() * total;
  for (const spec of specs) {
    x -= spec.weight;
    if (x < 0) return spec;
  }
  return specs[specs.length - 1]!;
}

export function planSoak(seed: number, steps: number, topology: Topology, faultRate = FAULT_RATE): PlannedStep[] {
  // The topology is mixed into the seed: the same seed on both topologies draws two plans, not one plan filtered two ways.
  const random = mulberry32(topology === 'ha' ? (seed ^ TOPOLOGY_SALT) >>> 0 : seed);
  const plan: PlannedStep[] = [];
  let model = initialModel(topology);
  for (let step = 1; step <= steps; step++) {
    const candidates = OPERATIONS.filter((o) => o.topologies.includes(topology) && o.applicable(model));
    const spec = pickWeighted(random, candidates);
    const operation = spec.draw(model, random);
    const fault = drawFault(random, spec.commands, faultRate);
    plan.push({ step, operation, before: model, ...(fault ? { fault } : {}) });
    model = modelAfter(model, operation);
  }
  return plan;
}
