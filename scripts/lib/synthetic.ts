// Deterministic synthetic resumes and roles for benchmarks: seeded PRNG, a few job families, realistic length and PII.
import type { CandidateInput } from '../../src/candidates/candidate-schemas.js';

/** mulberry32: a tiny seeded PRNG, so every run of a benchmark sees the same data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Family {
  titles: string[];
  skills: string[];
  domains: string[];
  work: string[];
}

const FAMILIES: Family[] = [
  { titles: ['Backend Engineer', 'Java Developer', 'Go Developer', 'Python Developer'], skills: ['Java', 'Spring', 'Go', 'Python', 'Django', 'PostgreSQL', 'Redis', 'Kafka', 'gRPC', 'REST APIs', 'Docker', 'Microservices'], domains: ['payments', 'logistics', 'e-commerce', 'banking'], work: ['designed and built REST and gRPC services', 'migrated a monolith to microservices', 'tuned PostgreSQL queries and indexes', 'built event pipelines on Kafka'] },
  { titles: ['Frontend Developer', 'React Developer', 'UI Engineer'], skills: ['JavaScript', 'TypeScript', 'React', 'Redux', 'Vue.js', 'HTML', 'CSS', 'Webpack', 'Jest', 'Next.js', 'GraphQL'], domains: ['media', 'retail', 'SaaS dashboards', 'travel'], work: ['built a design system in React and TypeScript', 'improved page load time with code splitting', 'wrote accessible, responsive user interfaces', 'introduced component tests with Jest'] },
  { titles: ['Data Scientist', 'Machine Learning Engineer', 'Data Engineer'], skills: ['Python', 'pandas', 'scikit-learn', 'TensorFlow', 'PyTorch', 'SQL', 'Spark', 'Airflow', 'Machine Learning', 'NLP', 'Statistics'], domains: ['healthcare', 'advertising', 'insurance', 'fintech'], work: ['trained and deployed classification models', 'built feature pipelines in Spark and Airflow', 'ran A/B tests and causal analyses', 'shipped an NLP model for document triage'] },
  { titles: ['DevOps Engineer', 'Site Reliability Engineer', 'Platform Engineer'], skills: ['Kubernetes', 'Terraform', 'AWS', 'GCP', 'Docker', 'Ansible', 'Jenkins', 'Prometheus', 'Linux', 'CI/CD', 'Helm'], domains: ['cloud infrastructure', 'gaming', 'telecom', 'streaming'], work: ['ran Kubernetes clusters across three regions', 'wrote Terraform modules for the whole platform', 'cut deployment time with CI/CD pipelines', 'built monitoring with Prometheus and Grafana'] },
  { titles: ['iOS Developer', 'Android Developer', 'Flutter Developer', 'Mobile Engineer'], skills: ['Swift', 'Objective-C', 'Kotlin', 'Java', 'Flutter', 'Dart', 'Firebase', 'Core Data', 'React Native', 'Xcode'], domains: ['fitness apps', 'banking apps', 'social apps', 'delivery apps'], work: ['shipped apps with millions of downloads', 'rebuilt the app architecture around MVVM', 'integrated push notifications and Firebase analytics', 'cut crash rates with better testing'] },
  { titles: ['Security Engineer', 'QA Engineer', 'Full Stack Developer'], skills: ['Node.js', 'TypeScript', 'Selenium', 'Cypress', 'OWASP', 'Penetration Testing', 'MongoDB', 'Express', 'Angular', 'PHP', 'Laravel'], domains: ['government', 'education', 'security products', 'marketplaces'], work: ['automated end-to-end tests with Cypress', 'ran penetration tests and fixed findings', 'built full stack features from database to UI', 'led code reviews and secure coding training'] },
];
const FIRST = ['Ana', 'Ben', 'Chen', 'Dara', 'Elif', 'Femi', 'Gita', 'Hugo', 'Ines', 'Jonas', 'Kofi', 'Lena', 'Mateo', 'Nora', 'Omar', 'Priya'];
const LAST = ['Silva', 'Novak', 'Okafor', 'Müller', 'Tanaka', 'Rossi', 'Kowalski', 'Haddad', 'Larsen', 'Garcia', 'Nguyen', 'Patel'];
const CITIES = ['Berlin, DE', 'London, UK', 'Pune, India', 'Austin, TX', 'Lisbon, PT', 'Toronto, CA', 'Remote', 'Warsaw, PL'];
const COMPANIES = ['Acme Corp', 'Globex', 'Initech', 'Umbrella Labs', 'Stark Systems', 'Wayne Digital', 'Hooli', 'Vandelay'];
const SOFT = ['mentored junior engineers', 'worked closely with product and design', 'presented at internal tech talks', 'owned on-call for critical services'];

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
function pickSome<T>(rand: () => number, items: readonly T[], n: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < n && pool.length) out.push(pool.splice(Math.floor(rand() * pool.length), 1)[0]!);
  return out;
}

/** Candidate i of a pool: same seed and index, same candidate, bit for bit. */
export function syntheticCandidate(i: number, seed = 1): CandidateInput {
  const rand = prng(seed * 1_000_003 + i);
  const family = FAMILIES[i % FAMILIES.length]!;
  const other = pick(rand, FAMILIES);
  const name = `${pick(rand, FIRST)} ${pick(rand, LAST)}`;
  const years = 1 + Math.floor(rand() * 18);
  const title = `${years >= 8 ? 'Senior ' : years <= 2 ? 'Junior ' : ''}${pick(rand, family.titles)}`;
  const skills = [...pickSome(rand, family.skills, 4 + Math.floor(rand() * 4)), ...pickSome(rand, other.skills, 1 + Math.floor(rand() * 2))];
  const city = pick(rand, CITIES);
  const jobs = 1 + Math.floor(rand() * 3);
  const experience = Array.from({ length: jobs }, (_, j) => {
    const span = Math.max(1, Math.round(years / jobs));
    return `${pick(rand, COMPANIES)} (${span} years, ${pick(rand, family.domains)}): ${pickSome(rand, family.work, 2).join('; ')}; ${pick(rand, SOFT)}. Used ${pickSome(rand, skills, 3).join(', ')} daily.${j === 0 ? ` Reduced costs by ${5 + Math.floor(rand() * 40)}%.` : ''}`;
  });
  const email = `${name.toLowerCase().replace(/[^a-z]+/g, '.')}${i}@example.com`;
  const resume = [
    name,
    `${email} | +1 555 ${String(1000 + (i % 9000)).padStart(4, '0')} | ${city}`,
    '',
    `Summary: ${title} with ${years} years of experience in ${pick(rand, family.domains)} and ${pick(rand, other.domains)}.`,
    `Skills: ${skills.join(', ')}.`,
    '',
    'Experience:',
    ...experience.map((e) => `- ${e}`),
    '',
    `Education: ${pick(rand, ['BSc', 'MSc', 'BEng'])} in ${pick(rand, ['Computer Science', 'Mathematics', 'Electrical Engineering', 'Physics'])}.`,
  ].join('\n');
  return { externalId: `syn-${seed}-${i}`, name, email, headline: title, location: city, yearsExperience: years, resume };
}

export function syntheticCandidates(count: number, seed = 1): CandidateInput[] {
  return Array.from({ length: count }, (_, i) => syntheticCandidate(i, seed));
}

/** A role of family f, written like the dataset's: title, then prose naming skills and a domain. */
export function syntheticRole(f: number, seed = 7): { title: string; description: string } {
  const rand = prng(seed * 7919 + f);
  const family = FAMILIES[f % FAMILIES.length]!;
  const skills = pickSome(rand, family.skills, 5);
  return {
    title: `Senior ${pick(rand, family.titles)}`,
    description: `We are hiring in ${pick(rand, family.domains)}. You will have 5+ years of experience with ${skills.join(', ')}. ` +
      `You ${pickSome(rand, family.work, 2).join(' and ')}. Location: ${pick(rand, CITIES)} or remote.`,
  };
}

/** A query text for retrieval benchmarks: a role's title and description. */
export function syntheticQuery(i: number): string {
  const role = syntheticRole(i, 11 + i);
  return `${role.title}\n${role.description}`;
}
