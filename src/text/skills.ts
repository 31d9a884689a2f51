// Skill vocabulary: one canonical name per skill, its aliases, extraction from prose, and a small relation graph.
//
// Table rows read "Canonical|alias|alias". Prefixes change how a form is found in prose (normalizeSkill
// accepts every form regardless): "~" never in prose (too ambiguous: "node", "ts"), "=" only with the
// exact case written ("Swift", "Spark", "REST"), "!" exact case and a list or language context ("Go", "R", "C").
import { ownCopy } from './own-copy.js';

const TABLE: readonly string[] = [
  // languages
  'JavaScript|js|javascript|ecmascript|es6|es2015|vanilla js', 'TypeScript|~ts', 'Python|python3|python 3|~py',
  'Java|core java|java 8|java 11|java se', 'Java EE|j2ee|jee|jakarta ee|java ee', 'C#|csharp|c sharp|c-sharp', 'C++|cpp|cplusplus|c plus plus',
  '!C|c language|c programming|ansi c', '!Go|golang|go lang|go language', '!R|r language|r programming|rstats', 'Ruby', 'PHP|php5|php7|php 7|php8',
  'Kotlin', '=Swift|swift 5|swift language', 'Objective-C|objective c|objc|obj-c', 'Scala', '=Rust|rustlang', 'Perl', '=Dart|dart language', 'Elixir',
  'Haskell', '=Lua', 'MATLAB', 'Bash|shell scripting|shell script|bash scripting|~shell|~sh', 'PowerShell', 'SQL|structured query language',
  'PL/SQL|plsql', 'T-SQL|tsql|transact-sql', 'VBA', 'Solidity', 'Groovy', 'F#', 'COBOL',
  // web
  'HTML|html5|html 5', 'CSS|css3|css 3', 'Sass|scss|=SASS', '~Less|=LESS|less.js', '=React|react.js|reactjs|react js',
  'React Native|react-native|reactnative', 'Redux|redux toolkit', 'Angular|angular 2|angular2|angular 2+|angular4|angular 8',
  'AngularJS|angular.js|angular js', 'Vue.js|vue|vuejs|vue js|vue 3', 'Next.js|nextjs|next js', 'Nuxt.js|nuxt|nuxtjs', 'Svelte', 'jQuery',
  'Bootstrap|twitter bootstrap', 'Tailwind CSS|tailwind|tailwindcss', 'Webpack', 'Material UI|material-ui|~mui', '=Ember.js|ember.js|emberjs|=Ember',
  'Backbone.js|backbonejs|=Backbone', 'D3.js|d3|d3js', 'Three.js|threejs', 'RxJS', 'Ajax', 'JSON', 'XML', 'GraphQL',
  'REST API|restful|restful api|restful apis|rest api|rest apis|restful services|restful web services|=REST',
  'SOAP|soap services|soap web services', 'WebSockets|websocket|socket.io', 'Microservices|microservice|micro services|microservices architecture',
  'Responsive Design|responsive web design', 'Web Accessibility|accessibility|wcag|a11y',
  // backend frameworks and platforms
  'Node.js|nodejs|node js|=Node|~node', 'Express.js|expressjs|express js|=Express', 'NestJS|nest.js', 'Django|django framework',
  'Django REST Framework|drf|django rest framework|django rest', 'Flask', 'FastAPI|fast api', '=Spring|spring framework|spring mvc',
  'Spring Boot|springboot|spring-boot', 'Hibernate', 'Ruby on Rails|ror|=Rails', 'Laravel', 'CodeIgniter|codeignitor', 'Symfony',
  'Zend Framework|zend', 'Yii', 'CakePHP|cake php', 'ASP.NET|asp net|asp.net mvc|asp.net core', '.NET|dotnet|.net core|.net framework|dot net',
  'Entity Framework', 'WordPress|~wp', 'WooCommerce', 'Drupal', 'Joomla', 'Magento', 'Shopify', 'Celery', 'RabbitMQ', 'Apache Kafka|kafka', 'gRPC',
  'OAuth|oauth2|oauth 2.0', 'JWT|json web tokens', 'MVC|model-view-controller|mvc architecture', 'MVVM',
  // mobile
  'iOS|ios development', 'Android|android development|android sdk', 'Flutter', 'SwiftUI', 'Xcode', 'Android Studio', 'Cocoa Touch|cocoa|cocoatouch',
  'Core Data', 'Core Animation', 'Firebase', 'Ionic', 'Xamarin', 'Jetpack Compose', '=Unity|unity3d',
  // data and machine learning
  'Machine Learning|ml|machine-learning', 'Deep Learning|~dl', 'Artificial Intelligence|=AI', 'NLP|natural language processing', 'Computer Vision',
  'TensorFlow|~tf', 'PyTorch|~torch', 'Keras', 'scikit-learn|sklearn|scikit learn|scikit', 'Pandas', 'NumPy', 'SciPy', 'Matplotlib', 'OpenCV',
  'Caffe', 'XGBoost', 'Hugging Face|huggingface', 'LLMs|llm|large language models', 'Data Analysis|data analytics', 'Data Science',
  'Data Visualization|data visualisation|dataviz', 'Statistics|statistical analysis', 'Tableau', 'Power BI|powerbi',
  '=Excel|ms excel|microsoft excel', 'Apache Spark|pyspark|=Spark', 'Hadoop', '=Hive|apache hive', 'Apache Airflow|airflow', 'ETL',
  'Data Warehousing|data warehouse', '=Snowflake', 'BigQuery', 'Databricks', 'dbt', 'Jupyter|jupyter notebook', 'CUDA',
  'A/B Testing|ab testing|a/b tests|split testing', 'MLOps',
  // databases
  'MySQL|my sql', 'PostgreSQL|postgres|psql|postgre sql|postgre', 'MongoDB|mongo', 'Redis', 'Oracle Database|oracle db|oracle sql|=Oracle',
  'Microsoft SQL Server|sql server|mssql|ms sql|ms sql server', 'SQLite', 'Cassandra|apache cassandra', 'DynamoDB', 'Elasticsearch|elastic search',
  'ELK Stack|elk|elastic stack', 'NoSQL', 'MariaDB', 'Neo4j', 'Database Administration|dba|database administrator',
  // cloud and devops
  'AWS|amazon web services', 'Azure|microsoft azure|ms azure', 'Google Cloud|gcp|google cloud platform', 'Heroku', 'AWS Lambda|~lambda',
  'EC2|amazon ec2|aws ec2', 'S3|amazon s3|aws s3', 'Docker|docker compose|docker-compose', 'Kubernetes|k8s|kube', '=Helm|helm charts', 'Terraform',
  'Ansible', '=Puppet', '=Chef', 'Jenkins', 'CI/CD|ci cd|cicd|ci / cd|continuous integration|continuous delivery|continuous deployment',
  'GitHub Actions', 'GitLab CI|gitlab ci/cd', 'CircleCI', 'Travis CI', 'Git', 'GitHub', 'GitLab', 'Bitbucket', 'SVN|subversion', 'Mercurial', 'Linux',
  'Unix', 'Windows Server', 'Nginx', 'Apache HTTP Server|apache httpd|apache web server', 'Tomcat|apache tomcat', 'Prometheus', 'Grafana', 'Nagios',
  'Zabbix', 'Splunk', 'Datadog', 'New Relic', 'Serverless', 'Infrastructure as Code|iac', 'CloudFormation', 'Site Reliability Engineering|sre',
  'DevOps', 'Maven', 'Gradle', 'npm', 'Vagrant', 'OpenShift', 'VMware', 'Active Directory',
  // networking and security
  'TCP/IP|tcp-ip', 'DNS', 'DHCP', 'LAN|local area network', 'WAN|wide area network', 'VPN', 'Firewalls|firewall',
  'Routing and Switching|routing & switching', 'Cisco|cisco ios', 'CCNA', 'CCNP', 'MPLS', 'OSPF', 'BGP', 'VLAN|vlans', 'Network Security',
  'Cybersecurity|cyber security|information security|infosec', 'Penetration Testing|pen testing|pentesting', 'SIEM', 'Wireshark', 'ITIL', 'VoIP',
  // testing and process
  'Unit Testing|unit tests', 'Selenium', 'JUnit', 'TestNG', '=Jest', '=Mocha', '=Jasmine', 'Cypress', 'pytest', 'Postman', 'RSpec',
  'Test-Driven Development|tdd|test driven development', 'Quality Assurance|qa', 'Agile|agile methodologies|agile methodology', 'Scrum', 'Kanban',
  'Jira', 'Confluence', 'OOP|object oriented programming|object-oriented programming|oops|object-oriented design', 'Design Patterns',
  'Data Structures|data structures and algorithms|dsa', 'Algorithms', 'Multithreading|multi-threading', 'UML', 'SDLC', 'LAMP Stack|lamp',
  'MEAN Stack|mean stack', 'MERN Stack|mern',
  // design and product
  'Figma', '=Sketch', 'Adobe XD|~xd', 'Adobe Photoshop|photoshop', 'Adobe Illustrator|illustrator', 'InDesign|adobe indesign',
  'UI Design|ui|user interface design', 'UX Design|ux|user experience|user experience design', 'Wireframing|wireframes|wireframe', 'Prototyping',
  'User Research', 'Graphic Design', 'Product Management', 'Project Management|project planning', 'Roadmapping|product roadmap',
  'Stakeholder Management', 'Requirements Gathering|requirements analysis', 'PMP', 'Six Sigma|lean six sigma', 'OKRs|okr', 'Business Analysis',
  // sales and marketing
  'Salesforce|sfdc', 'CRM|customer relationship management', 'HubSpot', 'B2B Sales|b2b', 'Lead Generation', 'Account Management', 'Cold Calling',
  'Negotiation', 'Business Development', 'SEO|search engine optimization|search engine optimisation', '=SEM|search engine marketing|ppc',
  'Google Ads|adwords|google adwords', 'Content Marketing', 'Social Media Marketing|smm|social media', 'Email Marketing', 'Google Analytics|ga4',
  'Digital Marketing', 'Copywriting', 'Marketing Automation', 'Brand Management|branding',
  // finance
  'Financial Modeling|financial modelling', 'Accounting', 'Bookkeeping', 'QuickBooks', 'GAAP|us gaap', 'IFRS', 'Financial Analysis',
  'Budgeting|budget planning', 'Forecasting', 'Auditing|audit', 'Taxation|tax preparation', 'SAP|sap erp', 'CPA', 'CFA', 'Accounts Payable',
  'Accounts Receivable', 'FP&A|financial planning and analysis', 'Risk Management',
  // people, healthcare and general
  'Recruiting|recruitment|talent acquisition', 'Onboarding|employee onboarding', 'Payroll', 'HRIS', 'Workday', 'Employee Relations',
  'Performance Management', 'Compensation and Benefits|compensation & benefits', 'SHRM|shrm-cp', 'Employment Law|labor law', 'Patient Care',
  'Electronic Health Records|ehr|emr|electronic medical records', '=Epic|epic systems', 'HIPAA', 'BLS|basic life support', 'ACLS', 'Phlebotomy',
  'Medical Coding|icd-10|cpt coding', 'Clinical Research', 'Medication Administration', 'Pharmacology', 'Communication|communication skills',
  'Leadership|team leadership', 'Problem Solving|problem-solving', 'Customer Service|customer support', 'Technical Writing',
  'Microsoft Office|ms office|office 365|microsoft office suite', 'Customer Success', 'Data Entry',
];

// Hand-written neighbours; read both ways.
const RELATED: readonly string[] = [
  'Kubernetes>Docker,Helm,OpenShift', 'React>JavaScript,TypeScript,Redux,Next.js,React Native', 'Angular>TypeScript,RxJS,JavaScript,AngularJS',
  'Vue.js>JavaScript,Nuxt.js', 'Node.js>JavaScript,TypeScript,Express.js,NestJS,npm', 'PostgreSQL>SQL,MySQL', 'MySQL>SQL,MariaDB',
  'Microsoft SQL Server>SQL,T-SQL', 'Oracle Database>SQL,PL/SQL', 'Django>Python,Django REST Framework,Flask', 'Flask>Python,FastAPI',
  'Spring Boot>Java,Spring,Hibernate', 'Laravel>PHP,CodeIgniter,Symfony', 'WordPress>PHP,WooCommerce', 'iOS>Swift,Objective-C,Xcode,SwiftUI',
  'Android>Kotlin,Java,Android Studio', 'Flutter>Dart,Firebase', 'Machine Learning>Python,Deep Learning,scikit-learn,Statistics',
  'Deep Learning>TensorFlow,PyTorch,Keras', 'AWS>EC2,S3,AWS Lambda,CloudFormation', 'Terraform>Infrastructure as Code,Ansible', 'Jenkins>CI/CD,Git',
  'Data Analysis>SQL,Excel,Pandas,Tableau,Power BI', 'Git>GitHub,GitLab,Bitbucket', 'Linux>Bash,Unix', 'Salesforce>CRM',
  'SEO>SEM,Google Analytics,Content Marketing', 'Financial Modeling>Excel,Financial Analysis', 'Recruiting>Onboarding,HRIS',
  'Electronic Health Records>Epic,HIPAA', 'Figma>UI Design,UX Design,Prototyping', 'TypeScript>JavaScript', 'Apache Spark>Hadoop,Scala,Python',
  'CCNA>Cisco,Routing and Switching', 'Scrum>Agile,Jira',
];

type Mode = 'plain' | 'case' | 'context';
interface Entry { canonical: string; mode: Mode; form: string }

const CANONICAL_BY_KEY = new Map<string, string>(); // every form, lowercase -> canonical
const PROSE_FORMS = new Map<string, Entry[]>(); // forms findable in prose, lowercase -> entries
const PROSE_WORDS = new Set<string>(); // single words of prose forms: tokens kept whole
const FIRST_WORD_SPAN = new Map<string, number>(); // first word of a prose form -> longest form starting with it

const LOOSE = new Map<string, string>(); // forms without spaces, dots, hyphens: "Type Script", "Machine-Learning"
const looseKey = (s: string): string => s.toLowerCase().replace(/[\s._-]+/g, '');
const FORMS_BY_CANONICAL = new Map<string, string[]>(); // canonical -> its lowercase forms, for closestSkills

interface Part { text: string; lower: string; offset: number; split: string }
interface Token { text: string; lower: string; start: number; end: number; split: string }

// A word, as this module and tokenize.ts read text: letters and digits with the marks of tech names (".NET", "C#",
// "CI/CD", "Node.js"). A run of Han, kana or Hangul is a word of its own: Chinese and Japanese write "熟练掌握Python和Java"
// without spaces, so "Python" is only found cut from the run. A run may hold several words: without a dictionary it is
// as far as a cut can go.
const CJK = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\u30FC';
// The v flag's class subtraction (--) keeps the other words' classes as they were, without a look-ahead per character.
export const WORD_RE = new RegExp(`[${CJK}]+|[[\\p{L}\\p{N}.#+]--[${CJK}]][[\\p{L}\\p{N}.#+\\/\\-&_']--[${CJK}]]*`, 'gv');
const PART_CACHE = new Map<string, Part[]>(); // raw word -> its parts; prose repeats words, so this is most of the speed

// "С++" and "С#" typed with a Cyrillic Es (U+0421, on the same key of a Russian keyboard): the Latin C, same length
// and case.
const CYRILLIC_C_RE = /^[\u0421\u0441](?=\+\+$|#$)/u;
export const withLatinC = (word: string): string => word.replace(CYRILLIC_C_RE, (es) => (es === '\u0421' ? 'C' : 'c'));

function wordParts(raw: string): Part[] {
  let word = withLatinC(raw.replace(/'s$/i, '').replace(/[.'/\-&_]+$/, ''));
  let offset = 0;
  // A leading dot is punctuation ("...and"), unless it is the skill's own: ".NET", ".NET/C#" as well as "C#/.NET".
  if (word.startsWith('.') && !PROSE_WORDS.has(word.toLowerCase()) && !PROSE_WORDS.has(word.split(/[/\-&]/, 1)[0]!.toLowerCase())) {
    const trimmed = word.replace(/^\.+/, '');
    offset = word.length - trimmed.length;
    word = trimmed;
  }
  if (word === '') return [];
  if (PROSE_WORDS.has(word.toLowerCase()) || !/[/\-&]/.test(word)) return [{ text: word, lower: word.toLowerCase(), offset, split: '' }];
  // "HTML/CSS" is two skills; "go-to-market" and "R&D" are no skills at all (see the context rule).
  const parts: Part[] = [];
  for (const m of word.matchAll(/[^/\-&]+/g)) {
    parts.push({ text: m[0], lower: m[0].toLowerCase(), offset: offset + m.index, split: m.index === 0 ? '' : word[m.index - 1]! });
  }
  return parts;
}

function proseTokens(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD_RE)) {
    let parts = PART_CACHE.get(m[0]);
    if (!parts) {
      if (PART_CACHE.size > 50_000) PART_CACHE.clear();
      // A copy: the match would keep the whole text alive in the cache (own-copy.ts).
      const word = ownCopy(m[0]);
      parts = wordParts(word);
      PART_CACHE.set(word, parts);
    }
    for (const p of parts) out.push({ text: p.text, lower: p.lower, start: m.index + p.offset, end: m.index + p.offset + p.text.length, split: p.split });
  }
  return out;
}

for (const row of TABLE) {
  for (const raw of row.split('|')) raw.replace(/^[~=!]/, '').toLowerCase().split(' ').forEach((w) => PROSE_WORDS.add(w));
}

for (const row of TABLE) {
  const forms = row.split('|');
  const canonical = forms[0]!.replace(/^[~=!]/, '');
  for (const raw of forms) {
    const marker = /^[~=!]/.test(raw) ? raw[0] : '';
    const form = raw.replace(/^[~=!]/, '');
    if (!CANONICAL_BY_KEY.has(form.toLowerCase())) CANONICAL_BY_KEY.set(form.toLowerCase(), canonical);
    if (!LOOSE.has(looseKey(form))) LOOSE.set(looseKey(form), canonical);
    (FORMS_BY_CANONICAL.get(canonical) ?? FORMS_BY_CANONICAL.set(canonical, []).get(canonical)!).push(form.toLowerCase());
    if (marker === '~') continue;
    // Keyed by the same tokenizer prose goes through, so "Routing & Switching" meets "routing switching".
    const words = proseTokens(form).map((t) => t.text);
    const key = words.join(' ').toLowerCase();
    const mode: Mode = marker === '=' ? 'case' : marker === '!' ? 'context' : 'plain';
    const list = PROSE_FORMS.get(key) ?? [];
    list.push({ canonical, mode, form: words.join(' ') });
    PROSE_FORMS.set(key, list);
    const first = key.split(' ')[0]!;
    FIRST_WORD_SPAN.set(first, Math.max(FIRST_WORD_SPAN.get(first) ?? 0, words.length));
  }
}

/** Every canonical skill name this project knows. */
export const KNOWN_SKILLS: readonly string[] = TABLE.map((row) => row.split('|')[0]!.replace(/^[~=!]/, ''));

/** True when the word is itself a known skill form ("c++", "node.js", "k8s"): tokenizers keep it whole. */
export const isSkillForm = (word: string): boolean => CANONICAL_BY_KEY.has(word.toLowerCase());

/** The canonical display name ("k8s" -> "Kubernetes"); unknown skills come back trimmed, with their own case. */
export function normalizeSkill(raw: string): string {
  const text = raw.replace(/\s+/g, ' ').trim().replace(/^[,;:]+|[,;:.]+$/g, '');
  const key = text.toLowerCase();
  const hit = CANONICAL_BY_KEY.get(key) ?? LOOSE.get(looseKey(text));
  if (hit) return hit;
  // Plurals of known skills ("Firewalls", "Microservices" are listed; "Dockers" is not).
  if (key.length > 3 && key.endsWith('s')) return CANONICAL_BY_KEY.get(key.slice(0, -1)) ?? text;
  return text;
}

/** The comparison key: lowercase canonical name. */
export function skillKey(s: string): string {
  return normalizeSkill(s).toLowerCase();
}

/** Canonical names, first occurrence kept, empty entries dropped. */
export function normalizeSkills(list: string[]): string[] {
  const byKey = new Map<string, string>();
  for (const name of list.map(normalizeSkill)) if (name !== '' && !byKey.has(name.toLowerCase())) byKey.set(name.toLowerCase(), name);
  return [...byKey.values()];
}

const LIST_BEFORE = new Set(['in', 'using', 'with', 'and', 'or', 'like', 'including', 'language', 'languages', 'as']);
const LIST_AFTER = new Set(['and', 'or', 'programming', 'language', 'developer', 'developers', 'engineer', 'code', 'lang', 'studio', 'shiny']);
const NOT_LANGUAGE_BEFORE = new Set(['grade', 'type', 'vitamin', 'class', 'section', 'plan', 'part', 'level', 'series', 'category', 'usb', 'tier', 'option', 'model', 'let', 'copyright']);
// "C-level executives", "the C-suite", "C class".
const NOT_LANGUAGE_AFTER = new Set(['level', 'levels', 'suite', 'class', 'section']);
const NOT_GO_CAPITALS_BEFORE = new Set(['to', 'the', 'on', 'a', 'and', 'lets', "let's", 'will', 'can', 'must', 'ready', 'we', 'i', 'you']);
const NOT_GO_AFTER = new Set(['to', 'live', 'ahead', 'through', 'beyond', 'back', 'out', 'further', 'for', 'get', 'on', 'up', 'above']);

/** "Go", "R" and "C" are skills only as languages: in a list, or next to a word that says so. */
function languageContext(text: string, tokens: Token[], i: number, form: string): boolean {
  const tok = tokens[i]!;
  // As written, or all in capitals ("LANGUAGES: GO, PYTHON"); a one-letter form already is.
  if ((tok.text !== form && tok.text !== form.toUpperCase()) || (tok.split !== '' && tok.split !== '/')) return false;
  if (tok.end < text.length && tokens[i + 1]?.split === '&') return false;
  const prevWord = tok.split === '' ? tokens[i - 1]?.text.toLowerCase() ?? '' : '';
  const nextWord = tokens[i + 1]?.text.toLowerCase() ?? '';
  const before = /(\S?)[ \t]*$/.exec(text.slice(Math.max(0, tok.start - 8), tok.start))?.[1] ?? '';
  const after = /^[ \t]*(\S?)/.exec(text.slice(tok.end, tok.end + 8))?.[1] ?? '';
  if (NOT_LANGUAGE_BEFORE.has(prevWord) || NOT_LANGUAGE_AFTER.has(nextWord) || (form === 'Go' && NOT_GO_AFTER.has(nextWord))) return false;
  // In capitals the verb reads as the language: "READY TO GO, ANYWHERE", "ON THE GO".
  if (form === 'Go' && tok.text === 'GO' && NOT_GO_CAPITALS_BEFORE.has(prevWord)) return false;
  // "Intel(R)", "Office(R)": a registered mark, the bracket against the word.
  if (/[\p{L}\p{N}]\($/u.test(text.slice(Math.max(0, tok.start - 2), tok.start)) && text[tok.end] === ')') return false;
  if (form === 'C' && /^[+#]/.test(text.slice(tok.end))) return false;
  const listed = /^[,(:/|;•*-]$/.test(before) || /^[,)/|;]?$/.test(after) || tok.split === '/';
  return listed || LIST_BEFORE.has(prevWord) || LIST_AFTER.has(nextWord);
}

// Skill names that are ordinary words in French, Spanish, Portuguese or Italian, and the neighbours that show them so:
// "Chef de projet", "Tableau de bord", "point de vue", "vue d'ensemble", "su larga scala", "economie di scala".
const OF = ['de', 'd', 'du', 'des', 'di', 'del', 'della', 'delle', 'dei', 'da', 'dos'];
const NOT_SKILL_AFTER = new Map<string, Set<string>>([
  ['vue', new Set(['de', 'la', 'une', 'en', 'du', 'sa', 'ma', 'cette', 'bonne', 'belle'])],
  ['scala', new Set(['larga', 'vasta', 'grande', 'piccola', 'di', 'la', 'una', 'alla', 'della', 'su'])],
]);
const NOT_SKILL_BEFORE = new Map<string, Set<string>>([
  ['vue', new Set([...OF, 'sur', 'générale', 'globale', 'aérienne'])],
  ['chef', new Set(OF)],
  ['tableau', new Set(OF)],
  ['scala', new Set([...OF, 'mobile'])],
]);

/** Whether a one-word match is the foreign word: a telling neighbour next to it, with only spaces between. */
function foreignWord(text: string, tokens: Token[], i: number): boolean {
  const tok = tokens[i]!;
  const prev = tokens[i - 1];
  const next = tokens[i + 1];
  const after = NOT_SKILL_AFTER.get(tok.lower);
  if (after && prev && after.has(prev.lower) && /^\s+$/.test(text.slice(prev.end, tok.start))) return true;
  const before = NOT_SKILL_BEFORE.get(tok.lower);
  // "d'ensemble" is one word; "d’ensemble" two ("d", "ensemble").
  const nextWord = next?.lower.replace(/^(d)'.*/, '$1');
  return !!before && !!next && before.has(nextWord!) && /^\s+$/.test(text.slice(tok.end, next.start));
}

/** Known skills mentioned in free text, canonical and de-duplicated, in order of first mention. */
export function extractSkills(text: string): string[] {
  const tokens = proseTokens(text);
  const found: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < tokens.length; ) {
    let matched = 0;
    const span = FIRST_WORD_SPAN.get(tokens[i]!.lower) ?? 0;
    for (let n = Math.min(span, tokens.length - i); n >= 1 && matched === 0; n--) {
      const slice = tokens.slice(i, i + n);
      const entries = PROSE_FORMS.get(n === 1 ? tokens[i]!.lower : slice.map((t) => t.lower).join(' '));
      if (!entries) continue;
      const original = slice.map((t) => t.text).join(' ');
      const entry = entries.find((e) =>
        e.mode === 'plain' ? true : e.mode === 'case' ? original === e.form || original === e.form.toUpperCase() : languageContext(text, tokens, i, e.form),
      );
      if (!entry || (n === 1 && foreignWord(text, tokens, i))) continue;
      matched = n;
      if (!seen.has(entry.canonical)) {
        seen.add(entry.canonical);
        found.push(entry.canonical);
      }
    }
    i += Math.max(1, matched);
  }
  return found;
}

const GRAPH = new Map<string, Set<string>>();
for (const line of RELATED) {
  const [head = '', tail = ''] = line.split('>');
  for (const other of tail.split(',')) {
    if (other === head) continue;
    (GRAPH.get(head) ?? GRAPH.set(head, new Set()).get(head)!).add(other);
    (GRAPH.get(other) ?? GRAPH.set(other, new Set()).get(other)!).add(head);
  }
}

/** Skills a recruiter would accept as adjacent evidence (Kubernetes -> Docker, Helm); canonical names. */
export function relatedSkills(skill: string): string[] {
  return [...(GRAPH.get(normalizeSkill(skill)) ?? [])];
}

function trigrams(s: string): Set<string> {
  const padded = `  ${s} `;
  return new Set(Array.from({ length: padded.length - 2 }, (_, i) => padded.slice(i, i + 3)));
}

/** Trigram overlap (Dice), with a bonus when one name contains the other ("Postgres" in "PostgreSQL"). */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const ta = trigrams(a);
  const tb = trigrams(b);
  let shared = 0;
  for (const t of ta) if (tb.has(t)) shared++;
  const contained = a.length >= 3 && b.length >= 3 && (a.includes(b) || b.includes(a)) ? 0.2 : 0;
  return (2 * shared) / (ta.size + tb.size) + contained;
}

/** The vocabulary entries nearest to raw, best first: tells a model which valid skills exist when it invents one. */
export function closestSkills(raw: string, vocabulary: string[], n = 5): string[] {
  const wanted = skillKey(raw);
  const scored = vocabulary.map((entry, index) => {
    const key = skillKey(entry);
    if (key === wanted) return { entry, index, score: 3 };
    // A known skill is as close as its nearest alias: "Amazon Web Service" is next to "AWS".
    const forms = [key, ...(FORMS_BY_CANONICAL.get(normalizeSkill(entry)) ?? [])];
    return { entry, index, score: Math.max(...forms.map((f) => similarity(wanted, f))) };
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return [...new Set(scored.map((s) => s.entry))].slice(0, n);
}
