// A role as models and the audit trail may see it: its free text scrubbed like a resume.
import type { RoleSpec } from '../matching/domain.js';
import { scrub, type ScrubOptions } from '../text/scrubber.js';

// A role names no candidate, so no name is known in advance; a contact after "Hiring manager" or "Contact:" goes.
// A header-name guess is off: a title like "Barista Wanted" is no person.
// A role's "Weight: able to lift 25 kg" is a requirement, not a person's particular.
const ROLE_TEXT: ScrubOptions = { detectNames: false, contactNames: true, particulars: false };
const scrubbed = new WeakMap<RoleSpec, RoleSpec>();

/**
 * The role with title, description, location and skills scrubbed (emails, phones, links, addresses, named
 * contacts). Idempotent, and cached per role object: every model call of a run renders the same role.
 */
export function scrubRole(role: RoleSpec): RoleSpec {
  const known = scrubbed.get(role);
  if (known) return known;
  const out: RoleSpec = {
    ...role,
    title: scrub(role.title, ROLE_TEXT),
    description: scrub(role.description, ROLE_TEXT),
    location: role.location === null ? null : scrub(role.location, ROLE_TEXT),
    mustHaveSkills: role.mustHaveSkills.map((s) => scrub(s, ROLE_TEXT)),
    niceToHaveSkills: role.niceToHaveSkills.map((s) => scrub(s, ROLE_TEXT)),
  };
  scrubbed.set(role, out);
  scrubbed.set(out, out);
  return out;
}
