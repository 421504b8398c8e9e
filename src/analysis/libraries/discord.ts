import type { LibraryDescriptor } from '../library.js';

/**
 * discord.js (v14), as an HTTP client: channels, users, members, messages and interactions send
 * through @discordjs/rest, whose promise rejects with a `DiscordAPIError` on any 4xx (403 Missing
 * Permissions, 404 Unknown Channel, 40060 interaction already acknowledged). They are never
 * imported as values, so a call is known by the type its receiver is declared with
 * (`channel: TextChannel`, `const owner: User = ...`). Sending a message, replying and following up
 * are POSTs, editing a PATCH: no idempotency key is sent (a message nonce is only checked with
 * `enforce_nonce`). A `Client`'s managers (`client.channels.fetch(id)`) request what their cache
 * lacks. Read from discord.js 14.x `TextBasedChannel#send`, `InteractionResponses`,
 * `Message#edit`.
 */
export const discordJs: LibraryDescriptor = {
  id: 'discord.js',
  modules: ['discord.js'],
  // @discordjs/rest 2.x (packages/rest/src/lib/utils/constants.ts `DefaultRestOptions.retries: 3`,
  // handlers/Shared.ts `makeNetworkRequest` and `handleErrors`): every request, whatever its method,
  // is sent again on a network error, a timeout or a 5xx, up to 3 retries (4 calls).
  builtInRetry: { attempts: 4, retriesWrites: true, label: '@discordjs/rest' },
  http: {
    method: 'members',
    senders: [],
    throwsOnClientError: true,
    types: [
      'Client', 'TextChannel', 'NewsChannel', 'ThreadChannel', 'DMChannel', 'VoiceChannel', 'StageChannel', 'ForumChannel', 'TextBasedChannel',
      'GuildTextBasedChannel', 'SendableChannels', 'User', 'GuildMember', 'Message', 'Webhook', 'WebhookClient', 'Interaction',
      'CommandInteraction', 'ChatInputCommandInteraction', 'ContextMenuCommandInteraction', 'UserContextMenuCommandInteraction',
      'MessageContextMenuCommandInteraction', 'MessageComponentInteraction', 'ButtonInteraction', 'StringSelectMenuInteraction',
      'ModalSubmitInteraction', 'RepliableInteraction',
    ],
    typedMembers: {
      send: 'POST', reply: 'POST', followUp: 'POST', deferReply: 'POST', deferUpdate: 'POST', update: 'POST', showModal: 'POST',
      crosspost: 'POST', editReply: 'PATCH', edit: 'PATCH', react: 'PUT', pin: 'PUT', delete: 'DELETE', deleteReply: 'DELETE',
      // A `Client`'s managers fetch what their cache lacks (a 404 Unknown Channel rejects).
      'channels.fetch': 'GET', 'users.fetch': 'GET', 'guilds.fetch': 'GET',
    },
  },
};
