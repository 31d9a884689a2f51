// Small, readable candidate and role fixtures for tests.
import type { CandidateInput } from '../../src/candidates/candidate-schemas.js';

export function candidate(externalId: string, overrides: Partial<CandidateInput> = {}): CandidateInput {
  return {
    externalId,
    name: `Person ${externalId}`,
    email: `${externalId}@example.com`,
    resume: `Software engineer with 6 years of experience in TypeScript and Node.js. Built APIs in PostgreSQL.`,
    ...overrides,
  };
}

export const BACKEND_RESUMES: Array<Partial<CandidateInput>> = [
  { headline: 'Senior backend engineer', yearsExperience: 9, location: 'Berlin, DE', skills: ['Go', 'Kubernetes', 'PostgreSQL', 'gRPC'], resume: 'Senior backend engineer, 9 years. Built Go microservices on Kubernetes with gRPC and PostgreSQL. Led a team of 5 and cut p99 latency by 40%.' },
  { headline: 'Frontend developer', yearsExperience: 4, location: 'Paris, FR', skills: ['React', 'TypeScript', 'CSS'], resume: 'Frontend developer building React and TypeScript single page apps, design systems in CSS.' },
  { headline: 'Data scientist', yearsExperience: 6, location: 'London, UK', skills: ['Python', 'Machine Learning', 'SQL'], resume: 'Data scientist: Python, pandas, scikit-learn machine learning models, SQL analytics and A/B testing.' },
  { headline: 'Platform engineer', yearsExperience: 7, location: 'Berlin, DE', skills: ['Kubernetes', 'Terraform', 'AWS', 'Go'], resume: 'Platform engineer running Kubernetes clusters on AWS with Terraform; wrote Go operators and CI/CD pipelines.' },
  { headline: 'Backend engineer', yearsExperience: 3, location: 'Remote', skills: ['Java', 'Spring', 'PostgreSQL'], resume: 'Backend engineer writing Java Spring Boot services with PostgreSQL and Kafka.' },
  { headline: 'Mobile developer', yearsExperience: 5, location: 'Madrid, ES', skills: ['Swift', 'iOS'], resume: 'iOS developer shipping Swift apps to the App Store; UIKit and SwiftUI.' },
];

export function backendPool(prefix = 'c'): CandidateInput[] {
  return BACKEND_RESUMES.map((r, i) => candidate(`${prefix}${i + 1}`, r));
}

export const GO_ROLE = {
  title: 'Senior Go backend engineer',
  description: 'We build distributed systems in Go on Kubernetes with gRPC and PostgreSQL. You will lead services end to end.',
  mustHaveSkills: ['Go', 'Kubernetes'],
  niceToHaveSkills: ['gRPC'],
  location: 'Berlin, DE',
  remote: true,
  seniority: 'senior' as const,
  minYearsExperience: 5,
};
