// The role resource as the HTTP contract defines it.
import { z } from 'zod';
import { SkillList, Timestamp, text } from '../http/schemas.js';
import { SENIORITIES } from '../matching/domain.js';

export const RoleInputSchema = z
  .object({
    title: text(1, 300),
    description: text(1, 50_000),
    mustHaveSkills: SkillList.optional(),
    niceToHaveSkills: SkillList.optional(),
    location: text(0, 200).optional(),
    remote: z.boolean().optional(),
    seniority: z.enum(SENIORITIES).optional(),
    minYearsExperience: z.number().int().min(0).max(70).optional(),
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
