// The resume-screening set read in place: resumes by ID, roles with the ID of their ground-truth resume.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseCsvRecords } from './csv.js';

export interface Resume {
  id: string;
  text: string;
}

export interface LabelledRole {
  index: number;
  title: string;
  description: string;
  /** The ID of the resume whose text equals the role's ground truth up to whitespace. */
  truthId: string;
}

export interface Dataset {
  resumes: Resume[];
  roles: LabelledRole[];
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Title = first non-empty line, description = the rest (the title again when nothing follows). */
export function splitRole(text: string): { title: string; description: string } {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  const title = (lines[first] ?? 'Untitled role').trim().slice(0, 300);
  const description = lines.slice(first + 1).join('\n').trim();
  return { title, description: description || title };
}

export async function loadDataset(dir: string): Promise<Dataset> {
  const [resumesCsv, rolesCsv] = await Promise.all([
    readFile(path.join(dir, 'resumes.csv'), 'utf8'),
    readFile(path.join(dir, 'roles-dev.csv'), 'utf8'),
  ]);
  const resumes = parseCsvRecords(resumesCsv, ['ID', 'Resume']).map((r) => ({ id: r.ID!.trim(), text: r.Resume! }));
  const byText = new Map<string, string>();
  for (const r of resumes) if (!byText.has(squash(r.text))) byText.set(squash(r.text), r.id);
  const roles = parseCsvRecords(rolesCsv, ['Job Description', 'Ground Truth']).map((r, index) => {
    const truthId = byText.get(squash(r['Ground Truth']!));
    if (truthId === undefined) throw new Error(`role ${index + 1}: its ground truth matches no resume, even up to whitespace`);
    return { index, ...splitRole(r['Job Description']!), truthId };
  });
  return { resumes, roles };
}
