import type { SlashCommand } from '@slack/bolt';
import { type Actor, KIND, roleIncludes } from '../../ops/api.js';
import { type ChosenAgents, decodeChosenAgents, namesAgents, withAgentsFound } from '../agent-references.js';
import { answerInAck } from '../answer-in-ack.js';
import { type Command, type CommandSpec, commands, parseCommand } from '../command.js';
import { replyTo, type SlackDeps } from '../deps.js';
import {
  agentsAnswer,
  auditAnswer,
  buyAnswer,
  changeAnswer,
  changesAnswer,
  createAgentAnswer,
  deleteAgentAnswer,
  deliver,
  historyAnswer,
  labelsAnswer,
  mapAnswer,
  numberCardAnswer,
  numbersAnswer,
  openForm,
  releaseAnswer,
  searchAnswer,
} from '../flows.js';
import { ACTION } from '../ids.js';
import { encodeMetadata } from '../metadata.js';
import { plainOfMrkdwn } from '../mrkdwn.js';
import { searchFrom } from '../paging.js';
import type { Respond } from '../respond.js';
import type { ListenerRouter } from '../router.js';
import { type Answer, messageSurface } from '../surfaces.js';
import { ownerOf } from '../team-named.js';
import { commandErrorMessage, helpMessage } from '../views/help.js';
import { createAgentModal, kindFormModal, searchModal } from '../views/modals.js';
import { routingPlanModal } from '../views/routing-plan.js';
import { unrouteMessage } from '../views/unroute.js';
import { type Requester, requesterIn } from '../who-asked.js';
import { type Body, actorOf as buttonActorOf, chosenValue, replyFor } from './actions.js';
import { bulkAnswer } from './batches.js';
import { openMapModal } from './modal-openers.js';
import { exportAnswer } from './routing-plan.js';
import { accessAnswer, settingsAnswer } from './settings.js';
import { subscriptionAnswer, subscriptionsAnswer } from './subscriptions.js';

interface Invocation {
  deps: SlackDeps;
  actor: Actor;
  triggerId: string;
  respond: Respond;
}

export function registerCommands(router: ListenerRouter): void {
  router.command('/voice', async ({ command, ack, context }, deps) => {
    const actor = actorOf(command, requesterIn(context));
    const privately = replyTo(deps, {
      userId: actor.userId,
      channelId: actor.channelId,
      responseUrl: command.response_url,
    });
    // Slack gives three seconds, and provider calls may take longer: the ack goes as soon as the listener waits on
    // I/O, carrying the answer only when it needed none.
    const answer = answerInAck(ack, privately, deps.logger);
    try {
      await answerCommand({ deps, actor, triggerId: command.trigger_id, respond: answer.reply }, command.text);
    } finally {
      await answer.ackBare();
    }
  });
  // One of several agents of a name typed: the same command goes on, naming it by its id.
  router.action<Body>(ACTION.chooseAgent, async ({ ack, body, context }, deps) => {
    await ack();
    const asked = decodeChosenAgents(chosenValue(body));
    if (!asked) return;
    const actor = buttonActorOf(body, requesterIn(context));
    const invocation = { deps, actor, triggerId: body.trigger_id, respond: replyFor(deps, body) };
    await answerCommand(invocation, asked.text, asked.chosen);
  });
}

/** A command's text, run with the agents chosen so far among several of a name (a Choose button's). */
async function answerCommand(invocation: Invocation, text: string, chosen: ChosenAgents['chosen'] = {}): Promise<void> {
  const { deps, actor, respond } = invocation;
  const parsed = parseCommand(text);
  deps.metrics.command(parsed.ok ? parsed.command.name : 'not understood');
  if (!parsed.ok) {
    if (parsed.attempted) await deps.ops.refuseInput(actor, parsed.attempted, plainOfMrkdwn(parsed.error));
    const error = `${parsed.error}${await roleNeeded(deps, actor, parsed.about)}`;
    const message = commandErrorMessage({ error, about: parsed.about });
    return messageSurface(respond, deps.now).show({ kind: 'message', message });
  }
  // A command that names no agent runs at once; one the person's role may not run goes to its operation, which
  // refuses it, before any agent is looked up.
  if (!namesAgents(parsed.command) || (await roleNeeded(deps, actor, parsed.about)))
    return run(invocation, parsed.command);
  const found = await withAgentsFound(deps, actor, parsed.command, { text, chosen });
  if (!found.ok) return deliver(deps, messageSurface(respond, deps.now), actor, found.answer);
  await run(invocation, found.command);
}

/**
 * " It needs the admin role, and yours is operator.": said after an error about a command (a "did you mean" among
 * them) that the person's role may not run; nothing (empty) when it may.
 */
async function roleNeeded(deps: SlackDeps, actor: Actor, about: CommandSpec | undefined): Promise<string> {
  if (!about || about.role === 'viewer') return '';
  const role = await deps.ops.roleOf(actor);
  return roleIncludes(role, about.role) ? '' : ` It needs the ${about.role} role, and yours is ${role}.`;
}

function actorOf(command: SlashCommand, who: Requester): Actor {
  return {
    ...who,
    channelId: command.channel_id,
    source: 'command',
    replyAddress: command.response_url,
  };
}

async function showHelp({ deps, actor, respond }: Invocation): Promise<void> {
  const role = await deps.ops.roleOf(actor);
  const inForce = await deps.ops.policiesInForce(actor.userId);
  const forRole = commands().filter((spec) => roleIncludes(role, spec.role));
  const message = helpMessage({ commands: forRole, role, sandbox: deps.sandbox, inForce });
  await messageSurface(respond, deps.now).show({ kind: 'message', message });
}

async function run(invocation: Invocation, command: Command): Promise<void> {
  const { deps, actor, triggerId, respond } = invocation;
  const reply = (answer: Answer) => deliver(deps, messageSurface(respond, deps.now), actor, answer);
  const metadata = encodeMetadata({ channelId: actor.channelId });
  switch (command.name) {
    case 'help':
      return showHelp(invocation);
    case 'agents.list': {
      const filter = { ...command.tags, ...(command.text === undefined ? {} : { text: command.text }) };
      return reply(await agentsAnswer(deps, actor, { page: 1, filter }, { fresh: true }));
    }
    case 'agents.create': {
      if (command.agentName && command.language) {
        return reply(await createAgentAnswer(deps, actor, { name: command.agentName, language: command.language }));
      }
      const denied = await deps.ops.authorize(actor, KIND.createAgent);
      if (denied) return reply({ kind: 'failure', failure: denied });
      const view = createAgentModal({ agentName: command.agentName, privateMetadata: metadata });
      return openForm(deps, { triggerId, view, instead: '/voice agents create NAME LANGUAGE', reply: respond });
    }
    case 'agents.delete':
      return reply(await deleteAgentAnswer(deps, actor, command.agent));
    case 'numbers.list':
      return reply(await numbersAnswer(deps, actor, { page: 1, filter: command.filter }, { fresh: true }));
    case 'numbers.show':
      return reply(await numberCardAnswer(deps, actor, command.number));
    case 'numbers.search': {
      if (command.region) return reply(await searchAnswer(deps, actor, searchFrom(command.region, command.digits)));
      const view = searchModal({ role: await deps.ops.roleOf(actor), privateMetadata: metadata });
      return openForm(deps, { triggerId, view, instead: '/voice numbers search REGION', reply: respond });
    }
    case 'numbers.buy':
      return reply(await buyAnswer(deps, actor, command.number));
    case 'numbers.release':
      return reply(await releaseAnswer(deps, actor, command.target));
    case 'map': {
      if (command.number && command.agent) {
        return reply(await mapAnswer(deps, actor, { phoneNumber: command.number, agentId: command.agent }));
      }
      const denied = await deps.ops.authorize(actor, KIND.map);
      if (denied) return reply({ kind: 'failure', failure: denied });
      return openMapModal(deps, actor, { triggerId, initialNumber: command.number, metadata, reply: respond });
    }
    case 'numbers.buy.bulk': {
      const { region, count, digits } = command;
      return reply(await bulkAnswer(deps, actor, { kind: KIND.buy, region, count, digits }));
    }
    case 'numbers.release.bulk':
      return reply(await bulkAnswer(deps, actor, { kind: KIND.release, filter: command.filter }));
    case 'map.bulk':
      return reply(await bulkAnswer(deps, actor, { kind: KIND.map, filter: command.filter, agentId: command.agent }));
    case 'labels.bulk': {
      const { name: _, ...asked } = command;
      return reply(await bulkAnswer(deps, actor, { kind: KIND.label, ...asked }));
    }
    case 'plan': {
      const denied = await deps.ops.authorize(actor, KIND.map);
      if (denied) return reply({ kind: 'failure', failure: denied });
      const view = routingPlanModal(metadata);
      return openForm(deps, { triggerId, view, instead: '/voice map FILTER to AGENT_ID', reply: respond });
    }
    case 'export':
      return reply(await exportAnswer(deps, actor, command.asOf));
    case 'changes':
      return reply(await changesAnswer(deps, actor, command.since));
    case 'audit':
      return reply(await auditAnswer(deps, { page: 1, filter: command.filter }));
    case 'history':
      return reply(await historyAnswer(deps, command.subject));
    case 'labels': {
      const owner = await ownerOf(deps, actor, command.owner);
      if ('ok' in owner) return reply({ kind: 'failure', failure: owner });
      const { target, add, remove } = command;
      const subject = 'number' in target ? target.number : target.agent;
      return reply(await labelsAnswer(deps, actor, { target: subject, add, remove, ...owner }));
    }
    case 'unroute':
      return reply({ kind: 'message', message: unrouteMessage(command.number) });
    case 'settings':
      return reply(await settingsAnswer(deps, actor));
    case 'access':
      return reply(await accessAnswer(deps, actor, command.person));
    case 'subscribe':
      return reply(await subscriptionAnswer(deps, actor, actor.channelId ?? '', command.filter));
    case 'unsubscribe':
      return reply(await subscriptionAnswer(deps, actor, actor.channelId ?? '', null));
    case 'subscriptions':
      return reply(await subscriptionsAnswer(deps, actor));
    case 'change':
      return reply(await changeAnswer(deps, actor, command.change));
    case 'change.form': {
      const denied = await deps.ops.authorize(actor, command.kind);
      if (denied) return reply({ kind: 'failure', failure: denied });
      const view = kindFormModal(command.form, encodeMetadata({ channelId: actor.channelId, kind: command.kind }));
      return openForm(deps, { triggerId, view, instead: command.instead, reply: respond });
    }
  }
}
