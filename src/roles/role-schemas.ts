// The role resource as the HTTP contract defines it.
import { z } from 'zod';
import { SkillList, Timestamp, optional, requiredText, text } from '../http/schemas.js';
import { SENIORITIES } from '../matching/domain.js';

export const RoleInputSchema = z
  .object({
    title: requiredText(1, 300),
    description: requiredText(1, 50_000),
    // Optional fields: null is left out (see optional).
    mustHaveSkills: optional(SkillList),
    niceToHaveSkills: optional(SkillList),
    location: optional(text(0, 200)),
    remote: optional(z.boolean()),
    seniority: optional(z.enum(SENIORITIES)),
    minYearsExperience: optional(z.number().int().min(0).max(70)),
  })
  .strict();

export type RoleInput = z.infer<typeof RoleInputSchema>;

export const RoleSchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    description: z.string(),
    mustHaveSkills: z.array(z.string()),
    niceToHaveSkills: z.array(z.string()),
    location: z.string().nullable(),
    remote: z.boolean().nullable(),
    seniority: z.enum(SENIORITIES).nullable(),
    minYearsExperience: z.number().int().nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: 'Role' });

export type Role = z.infer<typeof RoleSchema>;
