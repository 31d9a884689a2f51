// SQL for roles; the organisation is in every WHERE clause.
import type { Queryable } from '../db/database.js';
import type { Keyset } from '../http/pagination.js';
import { iso } from '../http/schemas.js';
import type { Seniority } from '../matching/domain.js';
import { normalizeSkills } from '../text/skills.js';
import type { Role, RoleInput } from './role-schemas.js';

interface RoleRow {
  id: string;
  title: string;
  description: string;
  must_have_skills: string[];
  nice_to_have_skills: string[];
  location: string | null;
  remote: boolean | null;
  seniority: Seniority | null;
  min_years_experience: number | null;
  created_at: Date;
}

function rowToRole(r: RoleRow): Role {
  return {
    id: r.id,
    title: r.title,
    description: r.description,
    mustHaveSkills: r.must_have_skills,
    niceToHaveSkills: r.nice_to_have_skills,
    location: r.location,
    remote: r.remote,
    seniority: r.seniority,
    minYearsExperience: r.min_years_experience,
    createdAt: iso(r.created_at)!,
  };
}

/**
 * SQL for a role row as a RoleSpec (JSON), for statements that read the role with something else, such as a
 * worker's claim. `alias` names the roles row.
 */
export function roleSpecJson(alias: string): string {
  return `json_build_object('title', ${alias}.title, 'description', ${alias}.description,
    'mustHaveSkills', ${alias}.must_have_skills, 'niceToHaveSkills', ${alias}.nice_to_have_skills,
    'location', ${alias}.location, 'remote', ${alias}.remote, 'seniority', ${alias}.seniority,
    'minYearsExperience', ${alias}.min_years_experience)`;
}

/** The columns a new role is inserted with, after org_id, in the order of roleInsertValues(). */
export const ROLE_INSERT_COLUMNS = 'title, description, must_have_skills, nice_to_have_skills, location, remote, seniority, min_years_experience';

/** A role input as the values of ROLE_INSERT_COLUMNS (skills normalised), for this store and statements that insert a role with something else. */
export function roleInsertValues(input: RoleInput): unknown[] {
  return [
    input.title,
    input.description,
    normalizeSkills(input.mustHaveSkills ?? []),
    normalizeSkills(input.niceToHaveSkills ?? []),
    input.location ?? null,
    input.remote ?? null,
    input.seniority ?? null,
    input.minYearsExperience ?? null,
  ];
}

export function createRoleStore(db: Queryable) {
  return {
    async create(orgId: string, input: RoleInput, tx: Queryable = db): Promise<Role> {
      const r = await tx.query<RoleRow>(
        `INSERT INTO roles (org_id, ${ROLE_INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
        [orgId, ...roleInsertValues(input)],
      );
      return rowToRole(r.rows[0]!);
    },

    async get(orgId: string, id: string, tx: Queryable = db): Promise<Role | null> {
      const r = await tx.query<RoleRow>('SELECT * FROM roles WHERE org_id = $1 AND id = $2', [orgId, id]);
      return r.rows[0] ? rowToRole(r.rows[0]) : null;
    },

    async list(orgId: string, limit: number, after: Keyset | null): Promise<Role[]> {
      const r = await db.query<RoleRow>(
        `SELECT * FROM roles
         WHERE org_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
         ORDER BY created_at DESC, id DESC LIMIT $4`,
        [orgId, after?.createdAt ?? null, after?.id ?? null, limit],
      );
      return r.rows.map(rowToRole);
    },
  };
}

export type RoleStore = ReturnType<typeof createRoleStore>;
