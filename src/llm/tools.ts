// The tool contract: a frozen allow-list of tools, each with a strict zod parameter schema checked before any code runs.
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { describeZodIssues } from './errors.js';
import { safeJsonParse } from './safe-json.js';
import type { AgentName } from './settings.js';

export interface ToolContext {
  orgId: string;
  runId: string | null;
  agent: AgentName;
  toolCallId: string;
  /** Aborted when the tool's own timeout passes or the run is cancelled; long handlers should pass it on. */
  signal: AbortSignal;
}

type AnyObjectSchema = z.ZodObject<z.ZodRawShape>;

export interface ToolSpec<P extends AnyObjectSchema, R> {
  name: string;
  description: string;
  parameters: P;
  handler: (args: z.output<P>, ctx: ToolContext) => Promise<R> | R;
  /** The handler's own time limit; past it the model gets a timeout result. */
  timeoutMs: number;
  /** Handler runs allowed per tool loop; further calls get an attempt_cap result. */
  maxAttempts: number;
}

export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly parameters: AnyObjectSchema;
  readonly handler: (args: unknown, ctx: ToolContext) => Promise<unknown>;
  readonly timeoutMs: number;
  readonly maxAttempts: number;
}

/** A handler throws this to tell the model something useful; any other error reaches the model as a bare "failed". */
export class ToolFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolFailure';
  }
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function defineTool<P extends AnyObjectSchema, R>(spec: ToolSpec<P, R>): Tool {
  if (!TOOL_NAME.test(spec.name)) throw new TypeError(`tool name must match ${TOOL_NAME}: ${spec.name}`);
  if (!(spec.timeoutMs > 0) || !Number.isInteger(spec.maxAttempts) || spec.maxAttempts < 1) {
    throw new TypeError(`tool ${spec.name}: timeoutMs must be > 0 and maxAttempts an integer >= 1`);
  }
  // Unknown keys are rejected, not silently dropped: a model inventing arguments should hear that it did.
  const parameters = spec.parameters.strict() as unknown as AnyObjectSchema;
  return Object.freeze({
    name: spec.name,
    description: spec.description,
    parameters,
    // args have been through `parameters` (validateToolArguments) before any handler is called.
    handler: async (args: unknown, ctx: ToolContext) => spec.handler(args as z.output<P>, ctx),
    timeoutMs: spec.timeoutMs,
    maxAttempts: spec.maxAttempts,
  });
}

export function toolDefinition(tool: Tool): ChatCompletionFunctionTool {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.parameters, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
}

/** The allow-list: frozen, so nothing adds or swaps a tool after the registry is built. */
export function createToolRegistry(tools: readonly Tool[]) {
  const byName: Record<string, Tool> = Object.create(null) as Record<string, Tool>;
  for (const tool of tools) {
    if (Object.hasOwn(byName, tool.name)) throw new TypeError(`duplicate tool name: ${tool.name}`);
    byName[tool.name] = tool;
  }
  Object.freeze(byName);
  const definitions = Object.freeze(tools.map(toolDefinition));
  return Object.freeze({
    names: Object.freeze(tools.map((t) => t.name)),
    toolDefinitions: (): ChatCompletionFunctionTool[] => structuredClone([...definitions]),
    find: (name: string): Tool | undefined => (Object.hasOwn(byName, name) ? byName[name] : undefined),
  });
}

export type ToolRegistry = ReturnType<typeof createToolRegistry>;

export type ArgumentCheck = { ok: true; args: unknown } | { ok: false; error: string; issues: string[] };

// Tool arguments are small; anything bigger is a runaway or an attack.
const MAX_ARGUMENT_CHARS = 20_000;

/**
 * The security gate: parse safely, then the strict schema (required keys, types, enums, no unknown keys).
 * raw is whatever the model sent: the wire format says a JSON-encoded string, but some servers send the object itself
 * (llama.cpp's server with --tool-args-object), which is read as its JSON text, through the same limits and schema;
 * null, nothing, a list or a number is the model's mistake to hear about, not a crash.
 */
export function validateToolArguments(tool: Tool, given: unknown): ArgumentCheck {
  const raw = given !== null && typeof given === 'object' && !Array.isArray(given) ? JSON.stringify(given) : given;
  if (typeof raw !== 'string') {
    const got = raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw;
    const issue = `arguments must be a string holding a JSON object, got ${got}`;
    return { ok: false, error: issue, issues: [issue] };
  }
  const parsed = safeJsonParse(raw.trim() === '' ? '{}' : raw, { maxChars: MAX_ARGUMENT_CHARS, maxDepth: 8 });
  if (!parsed.ok) return { ok: false, error: `arguments are not valid JSON: ${parsed.error}`, issues: [parsed.error] };
  if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
    return { ok: false, error: 'arguments must be a JSON object', issues: ['arguments must be a JSON object'] };
  }
  const result = tool.parameters.safeParse(parsed.value);
  if (!result.success) {
    const issues = describeZodIssues(result.error.issues);
    return { ok: false, error: `invalid arguments for ${tool.name}: ${issues.join('; ')}`, issues };
  }
  return { ok: true, args: result.data };
}
