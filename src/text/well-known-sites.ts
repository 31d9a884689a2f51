// Sites of well-known companies, products and learning platforms: a bare domain of one of these is never a person's own
// site, even after "see" or "visit" ("see google.com", "visit coursera.org"). Part of the scrubber (scrub-sites.ts).
// Listed by the name a domain is registered under ("google" for google.com, cloud.google.com and google.co.uk). The
// list is short on purpose: a site missing from it is only over-scrubbed where a personal site would stand.
const WELL_KNOWN = new Set(
  (
    // Large technology companies and their products.
    'google youtube android chromium microsoft azure bing office live windows github linkedin amazon aws apple icloud meta ' +
    'facebook instagram whatsapp netflix ibm oracle salesforce adobe intel nvidia amd arm qualcomm cisco sap vmware dell hp ' +
    'lenovo samsung sony tesla spacex openai anthropic twitter x yahoo baidu alibaba tencent bytedance tiktok ' +
    // Commerce, travel and consumer services.
    'booking hotels expedia airbnb uber lyft spotify paypal stripe shopify ebay etsy walmart target flipkart paytm zomato ' +
    'swiggy ola rakuten zalando deliveroo doordash instacart ' +
    // Consulting and IT services.
    'accenture deloitte pwc ey kpmg mckinsey bcg bain capgemini cognizant infosys tcs wipro hcl techmahindra ' +
    // Developer platforms, hosting and tools.
    'gitlab bitbucket atlassian jira slack zoom dropbox twilio cloudflare digitalocean heroku vercel netlify render fly ' +
    'railway sentry datadog newrelic mongodb redis elastic docker kubernetes hashicorp terraform npmjs pypi stackoverflow ' +
    'stackexchange mozilla w3 w3schools mdn web dev figma canva notion trello asana hubspot zendesk servicenow workday ' +
    'snowflake databricks confluent grafana postman supabase firebase huggingface kaggle ' +
    // Learning, publishing and hiring sites.
    'wikipedia coursera udemy edx udacity pluralsight khanacademy freecodecamp geeksforgeeks leetcode hackerrank codechef ' +
    'medium substack wordpress blogger wix squarespace godaddy indeed glassdoor naukri monster upwork fiverr toptal ' +
    'producthunt ycombinator crunchbase abc'
  ).split(' '),
);
const GENERIC_SECOND_LEVEL = new Set('co com org net ac gov edu'.split(' '));

/** Whether the bare domain (no scheme or path) belongs to a well-known company or product. */
export function isWellKnownSite(domain: string): boolean {
  const labels = domain.toLowerCase().split('.');
  labels.pop();
  // "bbc.co.uk": the name stands before a generic second level.
  if (labels.length > 1 && GENERIC_SECOND_LEVEL.has(labels[labels.length - 1]!)) labels.pop();
  const name = labels[labels.length - 1];
  return name !== undefined && WELL_KNOWN.has(name);
}

/** Whether the name (one label, lower-case) is a well-known company's or product's ("apple", "booking"). */
export const isWellKnownName = (name: string): boolean => WELL_KNOWN.has(name);
