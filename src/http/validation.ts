// The validator compiler: zod for every schema (fastify-type-provider-zod), with a compiled check in front of it
// for the { id: uuid } params of most routes. A valid id passes with the value zod would give ({ id }, unknown
// keys stripped); anything else goes to zod itself, so a refusal is zod's, word for word.
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParamsSchema } from './schemas.js';

// The exact pattern z.uuid() checks (zod's own regex, not a copy).
const UUID = z.regexes.uuid();

export const fastValidatorCompiler: FastifySchemaCompiler<z.ZodType> = (route) => {
  const zod = validatorCompiler(route);
  if (route.schema !== IdParamsSchema) return zod;
  return (data: unknown) => {
    const id = (data as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && UUID.test(id)) return { value: { id } };
    return zod(data);
  };
};
