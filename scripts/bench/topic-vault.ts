/**
 * A deterministic vault on a topic far from software: the Skerrow Marine
 * Institute, a fictional coastal research institute with vessels, moorings,
 * field stations, surveys, cruise reports, permits, procedures and incident
 * write-ups. Each page has a distinct name, front matter and 150–400 words of
 * templated prose; `topicVaultQuestions` asks about single pages the way a
 * member of staff would. Automatic-recall benchmarks use it as a realistic
 * large vault whose questions must hit while ordinary coding prompts must not.
 * The same page count always produces the same bytes.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
  BenchmarkCategory,
  BenchmarkQuery,
} from "../../extensions/llm-wiki/lib/bench/fixture.ts";
import { slugify } from "../../extensions/llm-wiki/lib/vault/slug.ts";
import { mulberry32 } from "../test-models/mulberry32.ts";

type Rand = () => number;

const TYPES = [
  ["entity", "entities"],
  ["concept", "concepts"],
  ["synthesis", "syntheses"],
  ["analysis", "analyses"],
  ["source", "sources"],
  ["requirement", "requirements"],
  ["skill", "skills"],
  ["case", "cases"],
] as const;

type PageType = (typeof TYPES)[number][0];

/** A vocabulary list written as comma-separated text, so the lists stay compact. */
function list(text: string): readonly string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

const PLACES = list(`
  Ardnish, Balvenny, Brannock, Carrow, Corran, Dunmara, Eskadale, Fennick, Garvellan, Glasrock,
  Hallowmere, Inverkell, Kelvaig, Kilmorran, Lachie, Lisgarra, Morvane, Nessock, Orrin, Pellow,
  Quarrie, Rossan, Skerrow, Stroma Beg, Tarbeth, Ulvane, Vatersay Mor, Wester Ard, Yellan,
  Achmore, Barraig, Cairnbeg, Dalriach, Elgoll, Fladda, Gairloch Beg, Hestan, Islay Mor,
  Kinlochard, Laxdale, Mingary, Northbay, Oban Beg, Portnalong, Rubha Dubh, Sandwood, Torran,
  Uisken, Whitestrand, Ardtoe, Bunessan, Caolas, Drumbeg, Eilean Fada, Fionnphort, Glenuig,
  Harlosh, Inverie, Kentra, Lochbuie, Melness, Naast, Ord, Polbain, Raasaig, Scalpay Beg, Tanera,
  Ullinish, Achiltibuie, Badcall, Clachtoll, Duartmore, Erradale, Fasag, Gruinard, Horgabost,
  Inverasdale, Kylesku, Larachbeg, Mellon Udrigle
`);

const FEATURES = list(`
  Sound, Bank, Narrows, Reef, Skerries, Point, Deep, Shoal, Basin, Head, Inlet, Firth, Bay,
  Ledge, Spit, Roads
`);

const BIRDS = list(`
  Kestrel, Petrel, Fulmar, Gannet, Shearwater, Kittiwake, Guillemot, Razorbill, Puffin, Skua,
  Tern, Curlew, Whimbrel, Dunlin, Plover, Sanderling, Merlin, Osprey, Heron, Egret, Cormorant,
  Eider, Scoter, Merganser, Grebe, Albatross, Sandpiper, Turnstone, Oystercatcher, Redshank,
  Greenshank, Godwit, Avocet, Harrier, Peregrine, Storm Petrel, Black Guillemot, Great Northern,
  Sea Eagle, Whooper
`);

const FIRST_NAMES = list(`
  Morag, Ewan, Isla, Callum, Fiona, Ruaridh, Catriona, Angus, Eilidh, Duncan, Ailsa, Hamish,
  Kirsty, Lachlan, Mairi, Niall, Rhona, Struan, Shona, Torquil, Anja, Tomasz, Priya, Jonas,
  Leila, Mateo, Ingrid, Kofi, Sigrun, Ines
`);

const SURNAMES = list(`
  MacLeod, Campbell, Fraser, MacKinnon, Beaton, Matheson, Sinclair, Gunn, Morrison, MacAulay,
  Nicolson, Urquhart, Ross, Munro, Gillies, Buchanan, Lindqvist, Okafor, Haugland, Novak,
  Ferreira, Kowalski, Andersen, Mehta, Duarte, Brennan, Olafsson, Whitlock, Carmichael, Drummond
`);

const SPECIES = list(`
  grey seal, harbour porpoise, sugar kelp, blue mussel, sand eel, Atlantic cod, northern shrimp,
  brittle star, dog whelk, lion's mane jellyfish, maerl, eelgrass, horse mussel, basking shark,
  flapper skate, Atlantic herring, plaice, edible crab, Norway lobster, tall sea pen,
  native oyster, serrated wrack, common sunstar, bottlenose dolphin, otter, lesser weever,
  sea trout, saithe, velvet swimming crab, feather star
`);

const INSTRUMENTS = list(`
  CTD rosette, ADCP, chlorophyll fluorometer, oxygen optode, sediment trap, Van Veen grab,
  plankton net, multibeam echosounder, hydrophone array, pH sensor, turbidity sensor,
  drop camera, box corer, thermistor chain, nutrient autoanalyser, Niskin bottle frame,
  towed video sledge, acoustic release
`);

/** Instruments that take readings (a subset of INSTRUMENTS). */
const SENSORS = list(`
  chlorophyll fluorometer, oxygen optode, pH sensor, turbidity sensor, thermistor chain, ADCP,
  conductivity cell, pressure sensor
`);

const PHENOMENA = list(`
  tidal mixing, seasonal stratification, coastal upwelling, sediment resuspension,
  larval dispersal, kelp canopy loss, bottom-water hypoxia, internal wave breaking,
  freshwater plume spreading, ocean acidification, spring bloom timing, eelgrass recovery,
  heat stress on mussel beds, storm surge, salt wedge intrusion, benthic carbon burial,
  plankton patchiness, harmful algal blooms
`);

const DRIVERS = [
  "the spring–neap tidal cycle",
  "south-westerly winds pushing surface water offshore",
  "river discharge after heavy rain",
  "the sill at the mouth of the loch",
  "summer heating of the surface layer",
  "winter storms stirring the seabed",
  "grazing by sea urchins",
  "nutrient supply from the open shelf",
] as const;

const MONTHS = list(`
  January, February, March, April, May, June, July, August, September, October, November,
  December
`);

const ACTIVITIES = list(`
  diving, benthic grab sampling, beam trawl sampling, drone surveys, seal tagging,
  night-time plankton sampling, anchoring research vessels, acoustic surveys, shore collecting,
  kelp harvesting trials
`);

const TASKS = [
  ["Calibrating", "calibrate"],
  ["Deploying", "deploy"],
  ["Recovering", "recover"],
  ["Servicing", "service"],
  ["Cleaning", "clean"],
  ["Pressure-checking", "pressure-check"],
] as const;

/** [title phrase, how staff ask about it, what happened]. */
const FAILURES = [
  ["flooded pressure housing", "why did the pressure housing flood", "a pressure housing flooded"],
  ["fouled mooring line", "what fouled the mooring line", "the mooring line fouled"],
  ["lost sediment trap", "how did we lose the sediment trap", "a sediment trap went missing"],
  ["biofouled oxygen sensor", "why did the oxygen readings drift", "oxygen readings drifted"],
  [
    "wave buoy that drifted off station",
    "why did the wave buoy drift off station",
    "a wave buoy drifted off station",
  ],
  ["snapped winch cable", "why did the winch cable snap", "a winch cable snapped"],
  ["corrupted logger card", "what corrupted the logger card", "a logger card was corrupted"],
  [
    "acoustic release that failed to fire",
    "why didn't the acoustic release fire",
    "an acoustic release failed to fire",
  ],
  ["seal damage to a fyke net", "how did seals wreck the fyke net", "seals tore a fyke net"],
  ["capsized survey dinghy", "how did the survey dinghy capsize", "a survey dinghy capsized"],
] as const;

const MEETING_TOPICS = [
  "mooring plan",
  "permit renewal",
  "survey design",
  "vessel schedule",
  "sampling safety",
] as const;

const TRENDS = ["increasing slowly", "broadly stable", "declining", "recovering", "fluctuating"];
const PRESSURES = [
  "warming water",
  "mobile fishing gear",
  "nutrient run-off from farmland",
  "invasive wireweed",
  "disturbance from boat traffic",
  "fish-farm discharges",
];

/** Sentences any page may use; `{slot}`s are filled per occurrence. */
const SHARED_SENTENCES = [
  "The {month} {year} visit found conditions broadly in line with the long-term record for {subject}.",
  "{person} noted that swell from the south-west made small-boat work difficult on most afternoons.",
  "Water samples were filtered on board and frozen at minus twenty degrees for nutrient analysis back at the institute.",
  "Readings from the {sensor} were cross-checked against bottle samples taken at {depth} metres.",
  "Spring tides at {place} run at close to {knots} knots through the narrowest part of the channel, so work is timed around slack water.",
  "Local fishers report more {species} in recent summers, although the institute has not yet confirmed this with its own counts.",
  "Access from the shore is by the old pier at {place2}, which is usable for about three hours either side of high water.",
  "All raw files are archived on the institute data server under the site code, with a second copy on the field laptop.",
  "The record has a gap from {month} {year} when a logger battery failed during a storm.",
  "Weather windows in winter are short, and the team plans for one lost day in three.",
  "The site lies inside a marine protected area, so anchoring is restricted to the sandy patch marked on the chart.",
  "Seabird counts are made whenever the vessel is on station for more than an hour.",
  "Sediment at this depth is mostly muddy sand with patches of shell gravel and occasional cobbles.",
  "A volunteer group from {place2} helps with shore surveys twice a year.",
  "Comparisons with the {year} baseline need care because the sampling grid was moved slightly.",
  "The harbour master at {place2} must be told about any overnight deployment.",
  "Seabed temperature ranges from about {temp} degrees in late winter to the mid teens in September.",
  "{species} turned up on every drop-camera transect, often in dense patches near the rock edge.",
  "Photographs from each visit are filed with the survey log so that changes in the seabed can be compared over the years.",
  "RV {vessel} is the usual platform for this work, with the institute launch as a backup in calm weather.",
  "{person} keeps the site folder up to date and is the first contact for questions about it.",
  "Visibility underwater rarely exceeds {visibility} metres after westerly gales.",
];

/** Sentences specific to one page type. */
const TYPE_SENTENCES: Record<PageType, readonly string[]> = {
  entity: [
    "Routine maintenance is written up in the equipment book kept in the {place} store.",
    "Spare parts for the {instrument} are held locally, but larger items come from the main workshop.",
    "The annual inspection checks the anchor chain, the acoustic release and every shackle for wear.",
    "Biofouling builds up quickly in summer, and the sensors are cleaned on each service visit.",
    "Any damage found on a service visit is photographed and reported to {person}.",
    "It has been out of action twice in the last five years, both times after winter storms.",
    "Power comes from a bank of lithium cells, replaced every {months} months.",
  ],
  concept: [
    "The effect is strongest around spring tides and weakest at the neaps.",
    "Models run by {person} suggest that wind direction matters more than wind speed here.",
    "Long records are needed because variation from year to year is larger than any trend so far.",
    "Run-off from the river at {place2} adds a second driver after heavy rain.",
    "The process also shapes where {species} settle, which links it to the seabed survey programme.",
    "Similar behaviour has been described in other sea lochs on the west coast, though rarely measured this closely.",
    "Satellite images show the pattern clearly on calm days in late spring.",
  ],
  synthesis: [
    "This page draws together survey results, cruise reports and notes from field staff.",
    "Where sources disagree, the more recent survey is preferred unless its method was weaker.",
    "The open questions at the end are reviewed every spring by {person}.",
    "Taken together, the evidence points to a slow shift rather than a sudden change.",
    "Several findings rest on a single season of fieldwork and should be treated as provisional.",
    "The {year} storm season is the main break in the series and is discussed separately.",
  ],
  analysis: [
    "Counts were made along fixed transects with two observers to reduce missed animals.",
    "Confidence intervals are wide because few visits were possible in poor weather.",
    "Compared with the previous survey, the distribution has shifted towards deeper water.",
    "The analysis used the same grid as the baseline, so the results can be compared directly.",
    "{person} reviewed the results before they went into the annual report.",
    "Detection rates were lower in {month}, when plankton blooms reduced visibility.",
  ],
  source: [
    "Stations were occupied in a fixed order to keep transit time short.",
    "One station was abandoned because of creel lines on the seabed.",
    "The log records wind, sea state and every departure from the plan.",
    "All samples were labelled with the cruise code and station number before storage.",
    "{person} ran the night watch and the {instrument} casts.",
    "Fuel use was about {fuel} litres a day, slightly above the planning figure.",
  ],
  requirement: [
    "Applications must reach the licensing board at least six weeks before fieldwork starts.",
    "A copy of the permit has to be carried on the vessel at all times.",
    "Any breach is reported to the licensing board within 48 hours.",
    "The permit is reviewed every three years, and the conditions may change at renewal.",
    "Divers log every entry and exit time on the dive sheet, which {person} checks weekly.",
    "Disturbance to {species} must be kept to a minimum, and work stops if animals haul out nearby.",
  ],
  skill: [
    "Two people are needed on deck, and one of them must hold a current sea survival certificate.",
    "Record every step on the checklist sheet and sign it off before the vessel leaves station.",
    "If any value looks wrong, stop and call {person} before carrying on.",
    "Rinse all parts in fresh water afterwards and leave them to dry in the instrument store.",
    "Do not start in more than a force five; the deck becomes unsafe for lifting.",
    "Bring a spare {instrument} cable, because the connectors corrode quickly.",
  ],
  case: [
    "The problem was first noticed when readings stopped arriving at the shore station.",
    "Divers confirmed the cause on the next calm day.",
    "A similar failure had been seen once before at another site, but nobody wrote it up.",
    "The fix was cheap, but the lost part of the record cannot be recovered.",
    "The preparation checklist was updated so that the same fault is caught before deployment.",
    "{person} led the recovery and wrote the first report.",
  ],
};

const SECTION_HEADINGS: Record<PageType, readonly [string, string]> = {
  entity: ["Equipment and layout", "Maintenance history"],
  concept: ["Mechanism", "Observations"],
  synthesis: ["Evidence", "Open questions"],
  analysis: ["Method", "Findings"],
  source: ["Narrative", "Samples and records"],
  requirement: ["Conditions", "Compliance"],
  skill: ["Steps", "After the procedure"],
  case: ["What happened", "Fix and follow-up"],
};

/** A question a page can answer, before it is numbered and split. */
interface QuestionDraft {
  text: string;
  category: BenchmarkCategory;
}

/** Everything about one page except its rendered body. */
interface TopicPage {
  id: string;
  type: PageType;
  title: string;
  description: string;
  tags: string[];
  aliases: string[];
  created: string;
  updated: string;
  place: string;
  subject: string;
  intro: string;
  questions: QuestionDraft[];
}

/** What a kind builder returns; the caller adds id, type and dates. */
type PageDraft = Omit<TopicPage, "id" | "type" | "created" | "updated"> & { year: number };

function pick<T>(rand: Rand, items: readonly T[]): T {
  const item = items[Math.floor(rand() * items.length)];
  if (item === undefined) throw new Error("topic vault: empty vocabulary list");
  return item;
}

function between(rand: Rand, low: number, high: number): number {
  return low + Math.floor(rand() * (high - low + 1));
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `word` with "a" or "an" in front (by its first letter, which is right for this vocabulary). */
function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;
}

function person(rand: Rand): string {
  return `${pick(rand, FIRST_NAMES)} ${pick(rand, SURNAMES)}`;
}

function monthYear(rand: Rand, low = 2012, high = 2025): [string, number] {
  return [pick(rand, MONTHS), between(rand, low, high)];
}

/** Builds one page of a given type; `suffix` makes the name unique when retries run out. */
type Builder = (rand: Rand, index: number, suffix: string) => PageDraft;

function subjectOf(rand: Rand, suffix: string): { place: string; subject: string } {
  const place = `${pick(rand, PLACES)}${suffix}`;
  return { place, subject: `${place} ${pick(rand, FEATURES)}` };
}

const buildEntity: Builder = (rand, index, suffix) => {
  const kind = between(rand, 0, 4);
  const keeper = person(rand);
  const year = between(rand, 1982, 2021);
  if (kind === 0) {
    const bird = `${pick(rand, BIRDS)}${suffix}`;
    const port = pick(rand, PLACES);
    const length = between(rand, 11, 38);
    const title = `RV ${bird}`;
    return {
      title,
      description: `Research vessel of ${length} m working out of ${port}, skippered by ${keeper}.`,
      tags: ["vessel", "fleet", "ship"],
      aliases: [`the ${bird}`],
      place: port,
      subject: title,
      year,
      intro: `${title} is a ${length}-metre research vessel that the Skerrow Marine Institute runs from ${port} harbour. She was built in ${year}, sleeps ${between(rand, 2, 12)} scientists and is skippered by ${keeper}. Her deck gear includes an A-frame and ${withArticle(pick(rand, INSTRUMENTS))} winch.`,
      questions: [
        { text: `who is the skipper of ${title} these days?`, category: "paraphrase" },
        { text: `what's the home port of the ${bird}`, category: "entity_alias" },
        { text: title, category: "exact_lookup" },
      ],
    };
  }
  const { place, subject } = subjectOf(rand, suffix);
  if (kind === 1) {
    const name = `${place} Field Station`;
    const beds = between(rand, 4, 24);
    return {
      title: name,
      description: `Shore base at ${place} with a wet lab, a dive store and ${beds} beds, run by ${keeper}.`,
      tags: ["field-station", "infrastructure", "shore-base"],
      aliases: rand() < 0.5 ? [`${place} station`] : [],
      place,
      subject,
      year,
      intro: `The ${name} is the institute's shore base for work in ${subject}. It opened in ${year}, has a wet lab, a dive store and ${beds} beds, and is run by ${keeper}. Boats launch from the slipway below the station at half tide or above.`,
      questions: [
        { text: `who runs the ${name}?`, category: "paraphrase" },
        { text: `when did the field station at ${place} open`, category: "temporal" },
        { text: name, category: "exact_lookup" },
      ],
    };
  }
  const kinds = [
    ["mooring", "an instrument mooring", "M"],
    ["wave buoy", "a wave buoy", "WB"],
    ["tide gauge", "a tide gauge", "TG"],
  ] as const;
  const [noun, article, prefix] = kinds[kind - 2] ?? kinds[0];
  const name = `${subject} ${noun}`;
  const depth = between(rand, 8, 140);
  const [serviceMonth, serviceYear] = monthYear(rand, Math.max(year, 2016), 2025);
  const code = `${prefix}-${String(index).padStart(4, "0")}`;
  return {
    title: name,
    description: `${capitalize(article)} in ${subject} in ${depth} m of water, looked after by ${keeper}.`,
    tags: [noun.replace(" ", "-"), "infrastructure", "monitoring"],
    aliases: rand() < 0.5 ? [code] : [],
    place,
    subject,
    year,
    intro: `The ${name} is ${article} in ${depth} metres of water, first set up in ${year}. It is maintained by ${keeper}, who last serviced it in ${serviceMonth} ${serviceYear}. It carries ${withArticle(pick(rand, SENSORS))} and ${withArticle(pick(rand, SENSORS))}, and reports to the institute every ${between(rand, 2, 12)} hours.`,
    questions: [
      { text: `who maintains the ${name}?`, category: "paraphrase" },
      { text: `when was the ${name} last serviced`, category: "temporal" },
      { text: name, category: "exact_lookup" },
    ],
  };
};

const buildConcept: Builder = (rand, _index, suffix) => {
  const { place, subject } = subjectOf(rand, suffix);
  const phenomenon = pick(rand, PHENOMENA);
  const driver = pick(rand, DRIVERS);
  const lead = person(rand);
  const season = pick(rand, ["late spring", "high summer", "early autumn", "midwinter"]);
  const year = between(rand, 2008, 2022);
  return {
    title: `${capitalize(phenomenon)} in ${subject}`,
    description: `How ${phenomenon} works in ${subject}: what drives it, when it peaks and how it is measured.`,
    tags: ["oceanography", "process", phenomenon.split(" ")[0] ?? "process"],
    aliases: [],
    place,
    subject,
    year,
    intro: `In ${subject}, ${phenomenon} is driven mainly by ${driver}. It peaks in ${season} and has been studied here since ${year}, when ${lead} began a series of repeat measurements. The effect matters for everything else the institute measures at the site.`,
    questions: [
      { text: `what drives ${phenomenon} in ${subject}?`, category: "conceptual" },
      { text: `explain ${phenomenon} at ${subject} to me`, category: "conceptual" },
      { text: `when does ${phenomenon} peak in ${subject}`, category: "temporal" },
    ],
  };
};

const buildSynthesis: Builder = (rand, _index, suffix) => {
  const { place, subject } = subjectOf(rand, suffix);
  const author = person(rand);
  const from = between(rand, 1995, 2012);
  const to = between(rand, 2016, 2025);
  if (rand() < 0.5) {
    const species = pick(rand, SPECIES);
    const trend = pick(rand, TRENDS);
    return {
      title: `State of the ${species} population in ${subject}`,
      description: `What surveys from ${from} to ${to} say about ${species} in ${subject}.`,
      tags: ["synthesis", "population", "ecology"],
      aliases: [],
      place,
      subject,
      year: to,
      intro: `This synthesis by ${author} brings together every count of ${species} in ${subject} from ${from} to ${to}. The population is ${trend}, and the main pressure is ${pick(rand, PRESSURES)}.`,
      questions: [
        {
          text: `is the ${species} population in ${subject} going up or down?`,
          category: "synthesis",
        },
        {
          text: `what's the overall picture for ${species} around ${subject}`,
          category: "synthesis",
        },
      ],
    };
  }
  const pressure = pick(rand, PRESSURES);
  return {
    title: `${subject} ecosystem synthesis`,
    description: `An overview of habitats, species and pressures in ${subject}, ${from}–${to}.`,
    tags: ["synthesis", "ecosystem", "overview"],
    aliases: [],
    place,
    subject,
    year: to,
    intro: `This page summarises what the institute knows about ${subject} from ${from} to ${to}. It was compiled by ${author}. The dominant habitats are ${pick(rand, SPECIES)} beds and ${pick(rand, SPECIES)} grounds, and the pressure of most concern is ${pressure}.`,
    questions: [
      { text: `summarise what we know about the ${subject} ecosystem`, category: "synthesis" },
      { text: `what's the biggest pressure on ${subject}?`, category: "synthesis" },
    ],
  };
};

const buildAnalysis: Builder = (rand, _index, suffix) => {
  const { place, subject } = subjectOf(rand, suffix);
  const species = pick(rand, SPECIES);
  const year = between(rand, 2010, 2025);
  const analyst = person(rand);
  const change = between(rand, 3, 48);
  const direction = rand() < 0.5 ? "fewer" : "more";
  const conclusion =
    direction === "more"
      ? "the site is in good condition and needs no change to its protection"
      : "the decline is real and the site should be surveyed every year instead of every three";
  return {
    title: `${year} ${species} survey at ${subject}`,
    description: `Analysis of the ${year} ${species} survey in ${subject} and how it compares with earlier years.`,
    tags: ["survey", "analysis", "monitoring"],
    aliases: [],
    place,
    subject,
    year,
    intro: `The ${year} survey of ${species} in ${subject} was analysed by ${analyst}. It found ${change}% ${direction} ${species} than the previous survey, and concluded that ${conclusion}.`,
    questions: [
      {
        text: `what did the ${year} ${species} survey at ${subject} conclude?`,
        category: "conclusion",
      },
      {
        text: `did the ${species} numbers in ${subject} go up or down in the ${year} survey`,
        category: "conclusion",
      },
    ],
  };
};

const buildSource: Builder = (rand, index, suffix) => {
  const { place, subject } = subjectOf(rand, suffix);
  const lead = person(rand);
  const [month, year] = monthYear(rand);
  if (rand() < 0.6) {
    const bird = pick(rand, BIRDS);
    const code = `SK${String(year % 100).padStart(2, "0")}-${String(index).padStart(3, "0")}`;
    const days = between(rand, 2, 14);
    const stations = between(rand, 6, 60);
    return {
      title: `Cruise report ${code}: RV ${bird} to ${subject}`,
      description: `Report of cruise ${code} on RV ${bird}, ${month} ${year}: ${stations} stations in ${subject}.`,
      tags: ["cruise", "source", "fieldwork"],
      aliases: [code],
      place,
      subject,
      year,
      intro: `Cruise ${code} took RV ${bird} to ${subject} in ${month} ${year} for ${days} days. The chief scientist was ${lead}. The team worked ${stations} stations with the ${pick(rand, INSTRUMENTS)} and the ${pick(rand, INSTRUMENTS)}.`,
      questions: [
        { text: `what did we sample on cruise ${code}?`, category: "entity_alias" },
        {
          text: `find the report from the ${bird}'s ${month} ${year} trip to ${subject}`,
          category: "evidence_request",
        },
      ],
    };
  }
  const topic = pick(rand, MEETING_TOPICS);
  const decision = pick(rand, [
    "move the work to the following spring",
    "add a second visit in autumn",
    "buy a replacement instrument",
    "ask the licensing board for a variation",
    "keep the current plan unchanged",
  ]);
  return {
    title: `Meeting notes: ${subject} ${topic} review, ${month} ${year}`,
    description: `Notes from the ${month} ${year} meeting that reviewed the ${topic} for ${subject}.`,
    tags: ["meeting", "source", "planning"],
    aliases: [],
    place,
    subject,
    year,
    intro: `The ${topic} for ${subject} was reviewed in ${month} ${year}. ${lead} chaired the meeting and ${person(rand)} took notes. The group agreed to ${decision}.`,
    questions: [
      {
        text: `what was agreed at the ${month} ${year} ${subject} ${topic} review?`,
        category: "evidence_request",
      },
      {
        text: `who chaired the ${topic} meeting for ${subject} in ${year}`,
        category: "paraphrase",
      },
    ],
  };
};

const buildRequirement: Builder = (rand, index, suffix) => {
  const { place, subject } = subjectOf(rand, suffix);
  const activity = pick(rand, ACTIVITIES);
  const from = between(rand, 0, 11);
  const closedFrom = MONTHS[from] ?? "April";
  const closedTo = MONTHS[(from + between(rand, 1, 4)) % 12] ?? "June";
  const holder = person(rand);
  const permit = `MS-${String(1000 + index)}`;
  const group = between(rand, 2, 8);
  const year = between(rand, 2014, 2025);
  return {
    title: `Permit conditions for ${activity} in ${subject}`,
    description: `What the permit allows for ${activity} in ${subject}, including the closed season.`,
    tags: ["permit", "requirement", "compliance"],
    aliases: rand() < 0.6 ? [`Permit ${permit}`] : [],
    place,
    subject,
    year,
    intro: `Permit ${permit} covers ${activity} in ${subject}. It was issued in ${year} by the Coastal Licensing Board and is held by ${holder}. No more than ${group} people may work at once, and the work is not allowed from ${closedFrom} to ${closedTo} to protect breeding animals.`,
    questions: [
      {
        text: `do we need a permit for ${activity} in ${subject}, and what are the conditions?`,
        category: "paraphrase",
      },
      {
        text: `in which months are we not allowed to do ${activity} in ${subject}`,
        category: "temporal",
      },
      { text: `permit ${permit} conditions`, category: "entity_alias" },
    ],
  };
};

const buildSkill: Builder = (rand, index, suffix) => {
  const [gerund, verb] = pick(rand, TASKS);
  const instrument = pick(rand, INSTRUMENTS);
  const bird = `${pick(rand, BIRDS)}${suffix}`;
  const hours = between(rand, 1, 6);
  const signer = person(rand);
  const sop = `SOP-${String(100 + index)}`;
  const home = pick(rand, PLACES);
  const year = between(rand, 2012, 2025);
  return {
    title: `${gerund} the ${instrument} on RV ${bird}`,
    description: `Step-by-step procedure for ${gerund.toLowerCase()} the ${instrument} carried by RV ${bird}.`,
    tags: ["procedure", "skill", "equipment"],
    aliases: rand() < 0.6 ? [sop] : [],
    place: home,
    subject: `RV ${bird}`,
    year,
    intro: `This procedure (${sop}) covers ${gerund.toLowerCase()} the ${instrument} on RV ${bird}. It takes about ${hours} hours with two people and must be signed off by ${signer}. The first step is always to isolate the deck power and tag the winch.`,
    questions: [
      { text: `how do I ${verb} the ${instrument} on the ${bird}?`, category: "paraphrase" },
      {
        text: `who signs off ${gerund.toLowerCase()} the ${instrument} on RV ${bird}`,
        category: "paraphrase",
      },
    ],
  };
};

const buildCase: Builder = (rand, index, suffix) => {
  const { place, subject } = subjectOf(rand, suffix);
  const [failure, question, happened] = pick(rand, FAILURES);
  const [month, year] = monthYear(rand, 2014, 2025);
  const cause = pick(rand, [
    "a worn shackle pin that nobody had replaced",
    "a seal chewing through the float line",
    "a cracked O-ring fitted in a hurry",
    "a trawler towing across the site at night",
    "a wrongly set clock in the release unit",
    "strong spring tides combined with a storm",
    "a batch of faulty memory cards",
  ]);
  const reporter = person(rand);
  return {
    title: `Case: ${failure} at ${subject}`,
    description: `What went wrong with the ${failure} in ${subject} in ${month} ${year}, and how it was fixed.`,
    tags: ["case", "incident", "lessons"],
    aliases: rand() < 0.4 ? [`Incident ${String(200 + index)}`] : [],
    place,
    subject,
    year,
    intro: `In ${month} ${year}, ${happened} in ${subject}. ${reporter} traced it to ${cause}. The equipment was recovered within ${between(rand, 1, 20)} days and the site was back in service soon after.`,
    questions: [
      { text: `${question} at ${subject}?`, category: "vague_recollection" },
      {
        text: `what was the root cause of the ${failure} in ${subject} in ${year}`,
        category: "paraphrase",
      },
    ],
  };
};

const BUILDERS: Record<PageType, Builder> = {
  entity: buildEntity,
  concept: buildConcept,
  synthesis: buildSynthesis,
  analysis: buildAnalysis,
  source: buildSource,
  requirement: buildRequirement,
  skill: buildSkill,
  case: buildCase,
};

function pageSeed(index: number): number {
  return index * 7919 + 271_829;
}

/** Page specs 0..pages-1; page i depends only on i and the pages before it, never on `pages`. */
function topicPages(pages: number): TopicPage[] {
  const used = new Set<string>();
  const result: TopicPage[] = [];
  for (let index = 0; index < pages; index += 1) {
    const [type, folder] = TYPES[index % TYPES.length] ?? TYPES[0];
    const rand = mulberry32(pageSeed(index));
    let draft = BUILDERS[type](rand, index, "");
    for (let attempt = 0; used.has(draft.title.toLowerCase()) && attempt < 64; attempt += 1) {
      draft = BUILDERS[type](rand, index, "");
    }
    if (used.has(draft.title.toLowerCase())) draft = BUILDERS[type](rand, index, ` ${index}`);
    used.add(draft.title.toLowerCase());
    const { year, ...rest } = draft;
    const month = String(between(rand, 1, 12)).padStart(2, "0");
    const day = String(between(rand, 1, 28)).padStart(2, "0");
    result.push({
      ...rest,
      id: `${folder}/${slugify(draft.title)}`,
      type,
      created: `${year}-${month}-${day}`,
      updated: `${Math.min(year + between(rand, 0, 3), 2025)}-${month}-${day}`,
    });
  }
  return result;
}

function fill(template: string, page: TopicPage, rand: Rand): string {
  const text = template.replace(/\{(\w+)\}/g, (_match, slot: string) => {
    switch (slot) {
      case "subject":
        return page.subject;
      case "place":
        return page.place;
      case "place2":
        return pick(rand, PLACES);
      case "person":
        return person(rand);
      case "species":
        return pick(rand, SPECIES);
      case "instrument":
        return pick(rand, INSTRUMENTS);
      case "sensor":
        return pick(rand, SENSORS);
      case "vessel":
        return pick(rand, BIRDS);
      case "month":
        return pick(rand, MONTHS);
      case "year":
        return String(between(rand, 2005, 2024));
      case "depth":
        return String(between(rand, 5, 120));
      case "knots":
        return String(between(rand, 2, 7));
      case "temp":
        return String(between(rand, 5, 8));
      case "visibility":
        return String(between(rand, 2, 9));
      case "months":
        return String(between(rand, 6, 24));
      case "fuel":
        return String(between(rand, 120, 900));
      default:
        throw new Error(`topic vault: unknown template slot {${slot}}`);
    }
  });
  return capitalize(text);
}

function shuffled<T>(rand: Rand, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    const a = copy[i] as T;
    copy[i] = copy[j] as T;
    copy[j] = a;
  }
  return copy;
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word !== "").length;
}

function yamlList(values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(", ")}]`;
}

/** The full text of page `index` of a vault of `all.length` pages. */
function renderPage(page: TopicPage, index: number, all: readonly TopicPage[]): string {
  const rand = mulberry32(pageSeed(index) ^ 0x5bd1e995);
  const [first, second] = SECTION_HEADINGS[page.type];
  const target = between(rand, 170, 340);
  const pool = shuffled(rand, [...TYPE_SENTENCES[page.type], ...SHARED_SENTENCES]);
  const sentences: string[] = [];
  let words = wordCount(page.intro) + 6;
  for (const template of pool) {
    if (words >= target) break;
    const sentence = fill(template, page, rand);
    sentences.push(sentence);
    words += wordCount(sentence);
  }
  const half = Math.ceil(sentences.length / 2);
  const links = new Set<string>();
  for (const k of [1, 2, 3]) {
    const other = all[(index * 31 + k * 977) % all.length];
    if (other !== undefined && other.id !== page.id) links.add(`[[${other.id}]]`);
  }
  const lines = [
    "---",
    `type: ${page.type}`,
    `title: ${JSON.stringify(page.title)}`,
    `description: ${JSON.stringify(page.description)}`,
    `tags: ${yamlList(page.tags)}`,
    ...(page.aliases.length > 0 ? [`aliases: ${yamlList(page.aliases)}`] : []),
    "status: stable",
    `created: ${page.created}`,
    `updated: ${page.updated}`,
    "---",
    "",
    `# ${page.title}`,
    "",
    page.intro,
    "",
    `## ${first}`,
    "",
    sentences.slice(0, half).join(" "),
    "",
    `## ${second}`,
    "",
    sentences.slice(half).join(" "),
    "",
  ];
  if (links.size > 0) lines.push(`Related: ${[...links].join(", ")}.`, "");
  return lines.join("\n");
}

/** Writes a Skerrow Marine Institute vault of `pages` pages under `root/.llm-wiki`. */
export function writeTopicVault(root: string, pages: number): void {
  if (!Number.isInteger(pages) || pages < 1) {
    throw new RangeError(`topic vault: pages must be a positive integer, got ${pages}`);
  }
  const dir = join(root, ".llm-wiki");
  mkdirSync(join(dir, "meta"), { recursive: true });
  const config = {
    name: `skerrow-marine-${pages}`,
    topic: "Skerrow Marine Institute: coastal field research",
    mode: "project",
    vault_id: `5e7a1c0d-2b4f-4c6e-8a1d-${String(pages).padStart(12, "0")}`,
    knowledge_format: "okf",
  };
  writeFileSync(join(dir, "config.json"), `${JSON.stringify(config, null, 2)}\n`);
  for (const [, folder] of TYPES) mkdirSync(join(dir, "wiki", folder), { recursive: true });
  const all = topicPages(pages);
  all.forEach((page, index) => {
    writeFileSync(join(dir, "wiki", `${page.id}.md`), renderPage(page, index, all));
  });
}

/** How many questions `topicVaultQuestions` asks. */
const QUESTION_COUNT = 72;

/**
 * Positive questions about single pages of `writeTopicVault(root, pages)`,
 * each judged grade 3 canonical for that page. Consecutive questions step
 * through every page type; every third is held out.
 */
export function topicVaultQuestions(pages: number): BenchmarkQuery[] {
  if (!Number.isInteger(pages) || pages < 1) {
    throw new RangeError(`topic vault: pages must be a positive integer, got ${pages}`);
  }
  const all = topicPages(pages);
  const queries: BenchmarkQuery[] = [];
  for (let q = 0; q < QUESTION_COUNT; q += 1) {
    // 137 ≡ 1 (mod 8): consecutive questions land on consecutive page types.
    const page = all[(q * 137 + 11) % all.length];
    if (page === undefined) continue;
    const draft = page.questions[Math.floor(q / TYPES.length) % page.questions.length];
    if (draft === undefined) continue;
    queries.push({
      id: `topic-${String(q + 1).padStart(2, "0")}`,
      text: draft.text,
      category: draft.category,
      split: q % 3 === 2 ? "heldout" : "train",
      judgments: [{ pageId: page.id, grade: 3, role: "canonical" }],
      autoExpectation: "hit",
    });
  }
  return queries;
}

/**
 * Other wordings of the training needs of `topicVaultQuestions(pages)`: for
 * each of its `train` questions, the page's other question drafts, split
 * `heldout` (ids `topic-NN-rK`). The feedback benchmark's held-out set: the
 * same needs asked in words no training session used.
 */
export function topicVaultRewordings(pages: number): BenchmarkQuery[] {
  const all = new Map(topicPages(pages).map((page) => [page.id, page]));
  const rewordings: BenchmarkQuery[] = [];
  for (const question of topicVaultQuestions(pages)) {
    if (question.split !== "train") continue;
    const pageId = question.judgments[0]?.pageId ?? "";
    const others = (all.get(pageId)?.questions ?? []).filter((d) => d.text !== question.text);
    others.forEach((draft, k) => {
      rewordings.push({
        ...question,
        id: `${question.id}-r${k + 1}`,
        text: draft.text,
        category: draft.category,
        split: "heldout",
      });
    });
  }
  return rewordings;
}
