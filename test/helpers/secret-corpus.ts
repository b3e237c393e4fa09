/**
 * A corpus of secrets for redaction tests: one case per kind of credential,
 * each embedded in the kind of text it is pasted in (env file, YAML, JSON,
 * INI, shell command, URL, netrc, pgpass, kubeconfig, docker config, prose).
 *
 * Every secret value is generated afresh on each call from a seed (drawn with
 * `crypto.randomInt` unless given), through a SHA-256 counter generator, so a
 * failing run can be replayed with the seed printed by `corpusSeedNote`.
 * Key spellings, quoting and surrounding text vary at random too.
 */
import { randomInt } from "node:crypto";
import { crc32 } from "node:zlib";
import {
  ALNUM,
  B64,
  B64URL,
  base64,
  CorpusRandom,
  DIGITS,
  hex,
  host,
  LETTERS,
  LOWER,
  password,
  pkcs8Key,
  prose,
  rsaKey,
  UPPER,
  user,
} from "./corpus-random.ts";
import { MAP_MAKERS } from "./secret-corpus-maps.ts";
import { pemCase, SHAPE_MAKERS } from "./secret-corpus-shapes.ts";

export { CorpusRandom } from "./corpus-random.ts";

/** One secret and a realistic text that contains it. */
export interface SecretCase {
  /** Name of the kind of credential (unique in the corpus). */
  kind: string;
  /** The exact substring that must never reach disk. */
  secret: string;
  /** A realistic line or block that contains `secret`. */
  text: string;
  /** Further substrings that must not survive either (the lines of a multi-line key). */
  pieces?: string[];
}

/** Builds one case from the random source (its kind is filled in by `secretCorpus`). */
export type Maker = (r: CorpusRandom) => SecretCase;

const MAKERS: Record<string, Maker> = {
  // --- named in the issue -------------------------------------------------
  gitlab_pat: (r) => {
    const secret = `glpat-${r.mixed(`${ALNUM}_-`, 20)}`;
    return { kind: "", secret, text: prose(r, `export GITLAB_TOKEN=${secret}`) };
  },
  stripe_live_secret: (r) => {
    const secret = `sk_live_${r.mixed(ALNUM, r.between(24, 99))}`;
    return { kind: "", secret, text: `stripe.api_key = "${secret}"` };
  },
  stripe_live_restricted: (r) => {
    const secret = `rk_live_${r.mixed(ALNUM, r.between(24, 99))}`;
    return { kind: "", secret, text: `The restricted key ${secret} only reads charges.` };
  },
  npm_token_bare: (r) => {
    const secret = `npm_${r.mixed(ALNUM, 36)}`;
    return { kind: "", secret, text: `Use ${secret} to publish from CI.` };
  },
  npmrc_auth_token: (r) => {
    const secret = `npm_${r.mixed(ALNUM, 36)}`;
    return { kind: "", secret, text: `//registry.npmjs.org/:_authToken=${secret}\n` };
  },
  azure_storage_account_key: (r) => {
    const secret = base64(r, 64);
    return {
      kind: "",
      secret,
      text: `AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=st${r.chars(LOWER, 8)};AccountKey=${secret};EndpointSuffix=core.windows.net"`,
    };
  },
  azure_sas_signature: (r) => {
    const secret = encodeURIComponent(base64(r, 32));
    return {
      kind: "",
      secret,
      text: `curl "https://st${r.chars(LOWER, 8)}.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&spr=https&sig=${secret}"`,
    };
  },
  azure_service_bus_key: (r) => {
    const secret = base64(r, 32);
    return {
      kind: "",
      secret,
      text: `Endpoint=sb://ns-${r.chars(LOWER, 6)}.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${secret}`,
    };
  },
  huggingface_token: (r) => {
    const secret = `hf_${r.chars(LETTERS, 34)}`;
    return { kind: "", secret, text: prose(r, `HF_TOKEN=${secret}`) };
  },
  sendgrid_key: (r) => {
    const secret = `SG.${r.mixed(`${ALNUM}_-`, 22)}.${r.mixed(`${ALNUM}_-`, 43)}`;
    return { kind: "", secret, text: `sendgrid:\n  api_key: ${secret}\n` };
  },
  aws_presigned_signature: (r) => {
    const secret = hex(r, 64);
    return {
      kind: "",
      secret,
      text: `https://bucket-${r.chars(LOWER, 5)}.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA${r.chars(UPPER + DIGITS, 16)}%2F20261130%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261130T120000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=${secret}`,
    };
  },
  aws_presigned_credential: (r) => {
    const secret = `ASIA${r.chars(UPPER + DIGITS, 16)}`;
    return {
      kind: "",
      secret,
      text: `GET /obj?X-Amz-Credential=${secret}%2F20261130%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Signature=${hex(r, 64)}`,
    };
  },
  gcs_signed_url: (r) => {
    const secret = hex(r, 512);
    return {
      kind: "",
      secret,
      text: `https://storage.googleapis.com/b-${r.chars(LOWER, 6)}/o.tar?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sa%40p.iam.gserviceaccount.com%2F20261130%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261130T000000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=${secret}`,
    };
  },
  url_query_sig: (r) => {
    const secret = r.mixed(B64URL, r.between(32, 48));
    return {
      kind: "",
      secret,
      text: `Download link: https://cdn.${r.chars(LOWER, 6)}.example.com/f/${r.chars(LOWER, 8)}.zip?expires=1767225600&signature=${secret}`,
    };
  },
  url_query_token: (r) => {
    const secret = r.mixed(ALNUM, r.between(32, 40));
    const key = r.pick(["token", "access_token", "api_key", "key", "auth"]);
    return {
      kind: "",
      secret,
      text: `GET https://api.${r.chars(LOWER, 6)}.example.com/v1/items?page=2&${key}=${secret}&limit=50`,
    };
  },
  docker_config_auth: (r) => {
    const secret = Buffer.from(`${user(r)}:${password(r)}`).toString("base64");
    return {
      kind: "",
      secret,
      text: `{\n  "auths": {\n    "registry.${r.chars(LOWER, 5)}.io": {\n      "auth": "${secret}"\n    }\n  }\n}`,
    };
  },
  netrc_password: (r) => {
    const secret = password(r);
    return {
      kind: "",
      secret,
      text: r.pick([
        `machine ${host(r)} login ${user(r)} password ${secret}`,
        `machine ${host(r)}\n  login ${user(r)}\n  password ${secret}\n`,
      ]),
    };
  },
  pgpass_password: (r) => {
    const secret = password(r);
    return {
      kind: "",
      secret,
      text: `${host(r)}:5432:${r.chars(LOWER, 6)}:${user(r)}:${secret}`,
    };
  },
  kubeconfig_client_key_data: (r) => {
    const key = rsaKey(r).block;
    const secret = Buffer.from(`${key}\n`).toString("base64");
    return {
      kind: "",
      secret,
      text: `users:\n- name: admin\n  user:\n    client-certificate-data: ${base64(r, 300)}\n    client-key-data: ${secret}\n`,
    };
  },
  kubeconfig_token: (r) => {
    const secret = r.mixed(`${ALNUM}._-`, r.between(40, 64));
    return {
      kind: "",
      secret,
      text: `users:\n- name: ci\n  user:\n    token: ${secret}\n`,
    };
  },
  mysql_cli_password: (r) => {
    const secret = password(r);
    return {
      kind: "",
      secret,
      text: `mysql -h ${host(r)} -u ${user(r)} -p${secret} ${r.chars(LOWER, 6)}`,
    };
  },
  smtp_password_letters: (r) => {
    // Letters only; not spelling a sample value (`xxpasswordxx` reads as an example).
    let secret = r.chars(LETTERS, r.between(10, 16));
    while (/pass|pwd|secret|token/i.test(secret)) secret = r.chars(LETTERS, r.between(10, 16));
    return {
      kind: "",
      secret,
      text: `${r.pick(["SMTP_PASSWORD", "smtp_password", "MAIL_SMTP_PASSWORD"])}=${secret}`,
    };
  },

  // --- major providers (what secretlint's preset knows, and more) ----------
  aws_access_key_id: (r) => {
    const secret = `${r.pick(["AKIA", "ASIA"])}${r.chars(UPPER + DIGITS, 16)}`;
    return { kind: "", secret, text: `[default]\naws_access_key_id = ${secret}\n` };
  },
  aws_secret_access_key: (r) => {
    const secret = r.mixed(B64, 40);
    return {
      kind: "",
      secret,
      text: r.pick([
        `[default]\naws_secret_access_key = ${secret}\n`,
        `AWS_SECRET_ACCESS_KEY="${secret}"`,
        `aws_secret_access_key: ${secret}`,
      ]),
    };
  },
  gcp_service_account_key: (r) => {
    const { lines } = pkcs8Key(r);
    const escaped = `-----BEGIN PRIVATE KEY-----\\n${lines.join("\\n")}\\n-----END PRIVATE KEY-----\\n`;
    const text = JSON.stringify(
      {
        type: "service_account",
        project_id: `proj-${r.chars(LOWER, 6)}`,
        private_key_id: hex(r, 40),
        private_key: "@@KEY@@",
        client_email: `sa@proj-${r.chars(LOWER, 6)}.iam.gserviceaccount.com`,
      },
      null,
      2,
    ).replace('"@@KEY@@"', `"${escaped}"`);
    return pemCase("", "", lines, text);
  },
  google_api_key: (r) => {
    const secret = `AIza${r.mixed(`${ALNUM}_-`, 35)}`;
    return { kind: "", secret, text: `const maps = new Maps({ key: "${secret}" });` };
  },
  github_classic_pat: (r) => {
    const secret = `ghp_${r.mixed(ALNUM, 36)}`;
    return { kind: "", secret, text: `git clone https://${secret}@github.com/acme/app.git` };
  },
  github_oauth_token: (r) => {
    const secret = `gho_${r.mixed(ALNUM, 36)}`;
    return { kind: "", secret, text: `oauth_token: ${secret}` };
  },
  github_user_to_server: (r) => {
    const secret = `ghu_${r.mixed(ALNUM, 36)}`;
    return { kind: "", secret, text: `token ${secret} expires in 8h` };
  },
  github_app_token: (r) => {
    const secret = `ghs_${r.mixed(ALNUM, 36)}`;
    return { kind: "", secret, text: `GITHUB_TOKEN=${secret}` };
  },
  github_refresh_token: (r) => {
    const secret = `ghr_${r.mixed(ALNUM, 36)}`;
    return { kind: "", secret, text: `{"refresh_token": "${secret}"}` };
  },
  github_fine_grained_pat: (r) => {
    const secret = `github_pat_${r.mixed(ALNUM, 22)}_${r.mixed(ALNUM, 59)}`;
    return { kind: "", secret, text: prose(r, `gh auth login --with-token <<< ${secret}`) };
  },
  slack_bot_token: (r) => {
    const secret = `xoxb-${r.chars(DIGITS, 12)}-${r.chars(DIGITS, 13)}-${r.mixed(ALNUM, 24)}`;
    return { kind: "", secret, text: `SLACK_BOT_TOKEN=${secret}` };
  },
  slack_user_token: (r) => {
    const secret = `xoxp-${r.chars(DIGITS, 12)}-${r.chars(DIGITS, 12)}-${r.chars(DIGITS, 13)}-${hex(r, 32)}`;
    return { kind: "", secret, text: `slack:\n  token: "${secret}"` };
  },
  slack_app_token: (r) => {
    const secret = `xapp-1-A${r.chars(UPPER + DIGITS, 10)}-${r.chars(DIGITS, 13)}-${hex(r, 64)}`;
    return { kind: "", secret, text: `Socket mode uses ${secret} here.` };
  },
  slack_webhook: (r) => {
    const secret = r.mixed(ALNUM, 24);
    return {
      kind: "",
      secret,
      text: `curl -X POST -d '{"text":"deployed"}' https://hooks.slack.com/services/T${r.chars(UPPER + DIGITS, 8)}/B${r.chars(UPPER + DIGITS, 10)}/${secret}`,
    };
  },
  openai_project_key: (r) => {
    const secret = `sk-proj-${r.mixed(B64URL, 74)}T3BlbkFJ${r.mixed(B64URL, 74)}`;
    return { kind: "", secret, text: `OPENAI_API_KEY=${secret}` };
  },
  openai_legacy_key: (r) => {
    const secret = `sk-${r.mixed(ALNUM, 20)}T3BlbkFJ${r.mixed(ALNUM, 20)}`;
    return { kind: "", secret, text: `openai.api_key = '${secret}'` };
  },
  anthropic_key: (r) => {
    const secret = `sk-ant-api03-${r.mixed(B64URL, 93)}AA`;
    return { kind: "", secret, text: prose(r, `ANTHROPIC_API_KEY=${secret}`) };
  },
  groq_key: (r) => {
    const secret = `gsk_${r.mixed(ALNUM, 52)}`;
    return { kind: "", secret, text: `client = Groq(api_key="${secret}")` };
  },
  linear_key: (r) => {
    const secret = `lin_api_${r.mixed(ALNUM, 40)}`;
    return { kind: "", secret, text: `LINEAR_API_KEY=${secret}` };
  },
  notion_token: (r) => {
    const secret = `ntn_${r.chars(DIGITS, 11)}${r.mixed(ALNUM, 35)}`;
    return { kind: "", secret, text: `notion = Client(auth="${secret}")` };
  },
  shopify_access_token: (r) => {
    const secret = `shpat_${hex(r, 32)}`;
    return { kind: "", secret, text: `X-Shopify-Access-Token: ${secret}` };
  },
  shopify_shared_secret: (r) => {
    const secret = `shpss_${hex(r, 32)}`;
    return { kind: "", secret, text: `shopify_secret = "${secret}"` };
  },
  onepassword_service_account: (r) => {
    let json = JSON.stringify({
      email: `${r.chars(LOWER + DIGITS, 13)}@1passwordserviceaccounts.com`,
      muk: { alg: "A256GCM", k: r.mixed(B64URL, 43), kty: "oct" },
      secretKey: `A3-${r.chars(UPPER + DIGITS, 6)}-${r.chars(UPPER + DIGITS, 6)}`,
      srpX: hex(r, 64),
    });
    // The token's base64 ends in `fQ` (a lone closing brace): pad to length 1 mod 3.
    while (json.length % 3 !== 1) json = `${json.slice(0, -1)} }`;
    const secret = `ops_${Buffer.from(json).toString("base64")}`;
    return { kind: "", secret, text: `OP_SERVICE_ACCOUNT_TOKEN=${secret}` };
  },
  databricks_token: (r) => {
    const secret = `dapi${hex(r, 32)}`;
    return {
      kind: "",
      secret,
      text: `[DEFAULT]\nhost = https://adb-1.azuredatabricks.net\ntoken = ${secret}\n`,
    };
  },
  vault_service_token: (r) => {
    const secret = `hvs.${r.mixed(B64URL, r.between(90, 110))}`;
    return { kind: "", secret, text: `export VAULT_TOKEN=${secret}` };
  },
  vercel_token: (r) => {
    const secret = `vcp_${r.mixed(ALNUM, r.between(24, 56))}`;
    return { kind: "", secret, text: `vercel deploy --token ${secret}` };
  },
  docker_hub_pat: (r) => {
    const secret = `dckr_pat_${r.mixed(`${ALNUM}_-`, 27)}`;
    return {
      kind: "",
      secret,
      text: `echo ${secret} | docker login -u ${user(r)} --password-stdin`,
    };
  },
  figma_token: (r) => {
    const secret = `figd_${r.mixed(`${ALNUM}_-`, 40)}`;
    return { kind: "", secret, text: `FIGMA_TOKEN=${secret}` };
  },
  cloudflare_token: (r) => {
    const body = r.mixed(ALNUM, 40);
    const secret = `cfut_${body}${crc32(body).toString(16).padStart(8, "0")}`;
    return { kind: "", secret, text: `CLOUDFLARE_API_TOKEN=${secret}` };
  },
  tailscale_auth_key: (r) => {
    const secret = `tskey-auth-${r.mixed(ALNUM, 12)}CNTRL-${r.mixed(ALNUM, 33)}`;
    return { kind: "", secret, text: `tailscale up --authkey=${secret}` };
  },
  grafana_cloud_token: (r) => {
    const secret = `glc_${base64(r, 60)}`;
    return { kind: "", secret, text: `grafana_token: ${secret}` };
  },
  grafana_service_account: (r) => {
    const secret = `glsa_${r.mixed(ALNUM, 32)}_${hex(r, 8)}`;
    return { kind: "", secret, text: `Authorization: Bearer ${secret}` };
  },
  jwt: (r) => {
    const head = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString("base64url");
    const body = Buffer.from(
      JSON.stringify({ sub: r.chars(DIGITS, 10), name: r.chars(LOWER, 6), iat: 1767225600 }),
    ).toString("base64url");
    const secret = `${head}.${body}.${r.bytes(32).toString("base64url")}`;
    return { kind: "", secret, text: `session cookie was ${secret} when it failed` };
  },
  twilio_auth_token: (r) => {
    const secret = hex(r, 32);
    return {
      kind: "",
      secret,
      text: `TWILIO_ACCOUNT_SID=AC${hex(r, 32)}\nTWILIO_AUTH_TOKEN=${secret}\n`,
    };
  },
  twilio_api_key_secret: (r) => {
    const secret = r.mixed(ALNUM, 32);
    return {
      kind: "",
      secret,
      text: `twilio:\n  api_key: SK${hex(r, 32)}\n  api_secret: ${secret}`,
    };
  },
  mailgun_key: (r) => {
    const secret = `key-${hex(r, 32)}`;
    return {
      kind: "",
      secret,
      text: `curl -s --user 'api:${secret}' https://api.mailgun.net/v3/mg.example.com/messages`,
    };
  },
  pypi_token: (r) => {
    const secret = `pypi-AgEIcHlwaS5vcmc${r.mixed(B64URL, r.between(70, 150))}`;
    return { kind: "", secret, text: `[pypi]\nusername = __token__\npassword = ${secret}\n` };
  },
  stripe_webhook_secret: (r) => {
    const secret = `whsec_${r.mixed(ALNUM, 32)}`;
    return { kind: "", secret, text: `STRIPE_WEBHOOK_SECRET=${secret}` };
  },
  digitalocean_token: (r) => {
    const secret = `dop_v1_${hex(r, 64)}`;
    return { kind: "", secret, text: `doctl auth init -t ${secret}` };
  },
  atlassian_api_token: (r) => {
    const secret = `ATATT3xFfGF0${r.mixed(`${ALNUM}_-`, 170)}=${hex(r, 8).toUpperCase()}`;
    return { kind: "", secret, text: `JIRA_API_TOKEN=${secret}` };
  },
  age_secret_key: (r) => {
    const secret = `AGE-SECRET-KEY-1${r.chars("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)}`;
    return { kind: "", secret, text: `# created: 2026-11-30\n${secret}\n` };
  },
  terraform_cloud_token: (r) => {
    const secret = `${r.mixed(ALNUM, 14)}.atlasv1.${r.mixed(ALNUM, 67)}`;
    return { kind: "", secret, text: `credentials "app.terraform.io" {\n  token = "${secret}"\n}` };
  },

  ...SHAPE_MAKERS,
  ...MAP_MAKERS,
};

/** Every kind in the corpus, generated afresh (values at random) from `seed`. */
export function secretCorpus(seed: number = randomInt(0, 2 ** 31)): SecretCase[] {
  const r = new CorpusRandom(seed);
  return Object.entries(MAKERS).map(([kind, make]) => ({ ...make(r), kind }));
}

/** A run's corpus seed: `SECRET_CORPUS_SEED` replays a failed run, else one drawn afresh. */
export function corpusSeed(): number {
  const given = process.env.SECRET_CORPUS_SEED;
  return given !== undefined && given !== "" ? Number(given) : randomInt(0, 2 ** 31);
}

/** The line to print on failure so the same values can be generated again. */
export function corpusSeedNote(seed: number): string {
  return `secret corpus seed ${seed} (replay: SECRET_CORPUS_SEED=${seed}, or secretCorpus(${seed}))`;
}
