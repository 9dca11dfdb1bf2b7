// Generated from Herald's /openapi.json by scripts/openapi.ts (openapi-typescript).
// Do not edit: run `npm run openapi` in clients/typescript instead.
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: the process answers
         * @description Answers as long as the process runs; it checks nothing else.
         */
        get: operations["getHealthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: the database answers within 2 s
         * @description A load balancer sends traffic while this is 200. 503 while the server shuts down (draining) or when the database does not answer within 2 s; this answer is no problem+json, as a probe reads only the status.
         */
        get: operations["getReadyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/event": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit an event
         * @description Stores the event, pushes it to the devices of its channel (only its recipients' with `to`) and hands it to every router whose pattern matches its `event` key. A 200 means the event is committed. Checks run in this order: 401, 413, 400, 429. Send `Idempotency-Key` to make a retry safe for 24 hours. With `deliverAt` or `delay` the event is stored and counted now and goes out (feed, pushes, routers) at its time, not before.
         */
        post: operations["postEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List scheduled events
         * @description The events of the workspace that are scheduled (`deliverAt` / `delay`) and have not gone out, soonest first, a page at a time. `status=scheduled` is required: sent events are read one by one (GET /events/{eventId}) or in the dashboard's feed.
         */
        get: operations["getEvents"];
        put?: never;
        /**
         * Submit events in a batch
         * @description Up to 1000 events in one request, each judged by the rules of POST /event on its own: one bad event does not sink the others. Checks of the whole body run in this order: 401, 413 (over 4 MiB), 400 (not a batch). Then each event gets a result, in request order: POST /event's 200 body, or a problem with the status POST /event would have answered (400, 413 for an event over 256 KiB, 422, 429). A 200 means every accepted event in it is committed. When no event fits the rate limit or the quota, the whole answer is a 429. Put an `idempotencyKey` in each event to make a retry safe for 24 hours; the Idempotency-Key header is refused here.
         */
        post: operations["postEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events/{eventId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an event as stored (after truncation), with its deliveries and their attempts
         * @description With the API key of the workspace the event was sent to.
         */
        get: operations["getEventsByEventId"];
        put?: never;
        post?: never;
        /**
         * Cancel a scheduled event
         * @description Cancels a scheduled event that has not gone out: it is never shown, pushed or routed, and its receipt (with `ack`) is cancelled. A cancel racing the release ends in exactly one of 200 (cancelled) or 409 (went out). Cancelling again answers 200 again (for 7 days after its time). The quota it took is not refunded.
         */
        delete: operations["deleteEventsByEventId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/receipts/{receipt}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a receipt
         * @description The state of an event sent with `ack`: pending while it repeats, then acknowledged (by whom, when, where), cancelled or expired.
         */
        get: operations["getReceiptsByReceipt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/receipts/{receipt}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a receipt
         * @description Stops the repeats of a pending receipt (the problem is solved, say): the repeats not yet sent end `cancelled`, and routers with `receipts: true` get `receipt.cancelled`. Takes no body.
         */
        post: operations["postReceiptsByReceiptCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List workspaces with their limits and usage
         * @description Every workspace of this Herald, with this month's usage.
         */
        get: operations["getAdminWorkspaces"];
        put?: never;
        /**
         * Create a workspace with its default channel and a first API key
         * @description Limits left out are the HERALD_DEFAULT_* settings.
         */
        post: operations["postAdminWorkspaces"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces/{workspace}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a workspace, its limits and usage
         * @description Its monthly quota, rate limit and this month's usage.
         */
        get: operations["getAdminWorkspacesByWorkspace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a workspace's monthly quota and rate limit
         * @description Fields left out are kept; so is the usage of this month.
         */
        patch: operations["patchAdminWorkspacesByWorkspace"];
        trace?: never;
    };
    "/admin/workspaces/{workspace}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys by prefix, with creation, last use and revocation
         * @description Revoked keys included, with when they were revoked.
         */
        get: operations["getAdminWorkspacesByWorkspaceKeys"];
        put?: never;
        /**
         * Create an API key
         * @description The key is in the answer, and never again. The body may be left out. A workspace has at most HERALD_MAX_API_KEYS_PER_WORKSPACE live keys; revoked keys do not count.
         */
        post: operations["postAdminWorkspacesByWorkspaceKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces/{workspace}/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Takes effect at once on every instance that hears it over NATS (and on the embedded default); an instance that does not (no NATS, or NATS away) within API_KEY_CACHE_TTL_MS (at most 5 s).
         */
        delete: operations["deleteAdminWorkspacesByWorkspaceKeysById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces/{workspace}/routers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a workspace's routers, oldest first, without their secrets
         * @description Destinations are shown redacted: their type, the origin of a URL, header names, recipients.
         */
        get: operations["getAdminWorkspacesByWorkspaceRouters"];
        put?: never;
        /**
         * Create a router
         * @description Forwards the events whose `event` key matches `pattern` to `destination`. The answer holds the signing secret, shown only this once. 409 when the name is taken, or when the workspace has HERALD_MAX_ROUTERS_PER_WORKSPACE routers.
         */
        post: operations["postAdminWorkspacesByWorkspaceRouters"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces/{workspace}/routers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a router, without its secrets
         * @description Its destination redacted, as in the list.
         */
        get: operations["getAdminWorkspacesByWorkspaceRoutersById"];
        put?: never;
        post?: never;
        /**
         * Delete a router
         * @description Its past deliveries stay readable on their events.
         */
        delete: operations["deleteAdminWorkspacesByWorkspaceRoutersById"];
        options?: never;
        head?: never;
        /**
         * Change a router
         * @description Absent fields are kept. Takes effect for the events that arrive after the answer.
         */
        patch: operations["patchAdminWorkspacesByWorkspaceRoutersById"];
        trace?: never;
    };
    "/admin/workspaces/{workspace}/routers/{id}/deliveries/settle": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fail or cancel a router's pending deliveries
         * @description Every delivery of the router still pending (retrying, or held while its destination fails) ends at once, `failed` or `cancelled`. A retry under way records its attempt but leaves the delivery as set here.
         */
        post: operations["postAdminWorkspacesByWorkspaceRoutersByIdDeliveriesSettle"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces/{workspace}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List deliveries
         * @description By default the deliveries that failed for good (a permanent error, or every attempt of the retry schedule used), newest failure first; with `state`, those of another state or of all. Each attempt is visible in GET /events/{eventId}.
         */
        get: operations["getAdminWorkspacesByWorkspaceDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces/{workspace}/deliveries/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay a delivery
         * @description Schedules a failed (or succeeded) delivery again with a fresh retry schedule, under the same id, so receivers can still drop duplicates.
         */
        post: operations["postAdminWorkspacesByWorkspaceDeliveriesByIdReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces/{workspace}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List members
         * @description Each with their role, their devices and the channels they muted.
         */
        get: operations["getAdminWorkspacesByWorkspaceMembers"];
        put?: never;
        /**
         * Add a member
         * @description Every member receives pushes for every channel of the workspace, except channels they mute. 409 if already a member.
         */
        post: operations["postAdminWorkspacesByWorkspaceMembers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces/{workspace}/members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a member
         * @description The last owner stays (409): make someone else owner first.
         */
        delete: operations["deleteAdminWorkspacesByWorkspaceMembersByUserId"];
        options?: never;
        head?: never;
        /**
         * Change a member's role
         * @description Any role, owners included; the last owner stays one (409): make someone else owner first.
         */
        patch: operations["patchAdminWorkspacesByWorkspaceMembersByUserId"];
        trace?: never;
    };
    "/admin/workspaces/{workspace}/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List channels
         * @description Each with the members who muted it, in slug order, a page at a time; `q` finds the channels whose slug contains it.
         */
        get: operations["getAdminWorkspacesByWorkspaceChannels"];
        put?: never;
        /**
         * Create a channel
         * @description A channel is also created by the first event that names it. 409 if it exists, or when the workspace has HERALD_MAX_CHANNELS_PER_WORKSPACE channels.
         */
        post: operations["postAdminWorkspacesByWorkspaceChannels"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces/{workspace}/channels/{channel}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a channel
         * @description Its events stay in the feed. Not the default channel (409).
         */
        delete: operations["deleteAdminWorkspacesByWorkspaceChannelsByChannel"];
        options?: never;
        head?: never;
        /**
         * Rename a channel, or make it the default
         * @description Its events, its mutes and, if it is the default, the default move to the new slug. 409 if the new slug is taken.
         */
        patch: operations["patchAdminWorkspacesByWorkspaceChannelsByChannel"];
        trace?: never;
    };
    "/admin/workspaces/{workspace}/channels/{channel}/mutes/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Mute a channel for a member
         * @description No pushes to their devices for its events. Muting twice is no error.
         */
        put: operations["putAdminWorkspacesByWorkspaceChannelsByChannelMutesByUserId"];
        post?: never;
        /**
         * Unmute a channel for a member
         * @description Pushes for its events reach their devices again. Unmuting twice is no error.
         */
        delete: operations["deleteAdminWorkspacesByWorkspaceChannelsByChannelMutesByUserId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces/{workspace}/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List invitations, newest first
         * @description Pending, accepted, revoked and expired ones; the operator's have no inviter.
         */
        get: operations["getAdminWorkspacesByWorkspaceInvitations"];
        put?: never;
        /**
         * Invite someone by e-mail
         * @description E-mails a link (through SMTP_URL, or logged when unset) that makes its holder a member once they sign in or sign up with that address. The invitation has no inviter. E-mails are throttled per recipient and for the operator as a whole (429 with Retry-After).
         */
        post: operations["postAdminWorkspacesByWorkspaceInvitations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/workspaces/{workspace}/invitations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an invitation
         * @description Its link stops working at once.
         */
        delete: operations["deleteAdminWorkspacesByWorkspaceInvitationsById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the pipeline status
         * @description What `herald status` prints: the bus, the outbox backlog, deliveries by state and the workspaces nearest their quota.
         */
        get: operations["getAdminStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List my devices
         * @description Every device of mine that receives pushes, whatever the workspace.
         */
        get: operations["getV1Devices"];
        put?: never;
        /**
         * Register or refresh a device
         * @description An upsert on the token: registering a token of yours again updates that device (and answers its id) instead of adding another. A token or endpoint registered to another account is refused (409).
         */
        post: operations["postV1Devices"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/devices/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a device
         * @description It gets no pushes from then on; its past deliveries stay in the delivery logs.
         */
        delete: operations["deleteV1DevicesById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/push/vapid-public-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The Web Push public key
         * @description What a browser subscribes with: `pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: publicKey })`. Then register the subscription with POST /v1/devices.
         */
        get: operations["getV1PushVapid-public-key"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How sign-up works here
         * @description What the dashboard shows before anyone fills a form in: whether sign-up is open, whether anyone has signed up yet, and the workspace the first account will own.
         */
        get: operations["getV1AuthSignup"];
        put?: never;
        /**
         * Sign up
         * @description With an invitation: creates the account, joins that workspace and signs in (201). The first account of a fresh install is also created at once (201), as the owner of the demo workspace made at first start when there is one (and of the named workspace, if one is given), else of a new workspace. Otherwise: 202, and a link is e-mailed (logged when SMTP_URL is unset) that finishes the sign-up through POST /v1/auth/signup/confirm; an address that already has an account gets the same 202, and its owner an e-mail saying someone tried. E-mails are throttled per address (429).
         */
        post: operations["postV1AuthSignup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/signup/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Finish a sign-up with its e-mailed link
         * @description Creates the account and its first workspace (with the default channel "general"), of which the new user is the owner, and signs in.
         */
        post: operations["postV1AuthSignupConfirm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/signin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in
         * @description The same 401 for an unknown address and a wrong password. Attempts are counted per account and per client address before the password is checked; past the limit, 429 with Retry-After.
         */
        post: operations["postV1AuthSignin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/password-reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ask for a password-reset link
         * @description Always 202, whether the address has an account or not. The link is e-mailed through SMTP_URL, or logged when SMTP_URL is unset; it voids earlier links. E-mails are throttled per address and per client address (429 with Retry-After).
         */
        post: operations["postV1AuthPassword-reset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/password-reset/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set a new password with a reset link
         * @description Voids every other reset link of the account and signs it out everywhere, at once.
         */
        post: operations["postV1AuthPassword-resetConfirm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/signout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out
         * @description Revokes this session or token, at once on every instance.
         */
        post: operations["postV1AuthSignout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * My sessions
         * @description Every live session of the signed-in person: web sessions and app tokens, newest first, this one marked `current`, never their secrets. An account has at most HERALD_MAX_SESSIONS_PER_USER (signing in past it ends the least recently used).
         */
        get: operations["getV1MeSessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/sessions/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * End one of my sessions
         * @description Signs that browser or app out at once, on every instance (its live streams end). Ending this very session is a sign-out, but its cookie is not cleared: use POST /v1/auth/signout for that.
         */
        delete: operations["deleteV1MeSessionsBySessionId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change my password
         * @description Checks the current password (counted like a sign-in, per account and per client address: past the sign-in limit it is a 429 with Retry-After), sets the new one, and ends every other session and reset link of the account at once. This session stays signed in.
         */
        post: operations["postV1MePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who am I
         * @description The signed-in person, the workspaces they belong to, and (for a web session) the CSRF token.
         */
        get: operations["getV1Me"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * My workspaces, with my role in each
         * @description Every workspace I am a member of, with its default channel.
         */
        get: operations["getV1Workspaces"];
        put?: never;
        /**
         * Create a workspace
         * @description With the default channel "general"; you are its owner. 409 when the name is taken, or when you own HERALD_MAX_WORKSPACES_PER_USER workspaces.
         */
        post: operations["postV1Workspaces"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A workspace: its limits and this month's usage
         * @description With my role in it; every member may read it.
         */
        get: operations["getV1WorkspacesByWorkspace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Rename a workspace
         * @description Owners only. Its members, keys, channels, routers and events stay; dashboard links and API paths use the new name from now on, and the old name is free at once.
         */
        patch: operations["patchV1WorkspacesByWorkspace"];
        trace?: never;
    };
    "/v1/workspaces/{workspace}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage: this month against the quota, and events per day over the last 30 days
         * @description What the dashboard charts; every member may read it.
         */
        get: operations["getV1WorkspacesByWorkspaceUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List channels
         * @description In slug order, a page at a time; `q` finds the channels whose slug contains it.
         */
        get: operations["getV1WorkspacesByWorkspaceChannels"];
        put?: never;
        /**
         * Create a channel
         * @description A channel is also created by the first event that names it. 409 when it exists, or when the workspace has HERALD_MAX_CHANNELS_PER_WORKSPACE channels.
         */
        post: operations["postV1WorkspacesByWorkspaceChannels"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/channels/{channel}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a channel
         * @description Its events stay in the feed. Not the default channel (409).
         */
        delete: operations["deleteV1WorkspacesByWorkspaceChannelsByChannel"];
        options?: never;
        head?: never;
        /**
         * Rename a channel, or make it the default
         * @description Events without a channel go to the new default at once on every instance that hears it over NATS (and on the embedded default); an instance that does not (no NATS, or NATS away) within API_KEY_CACHE_TTL_MS (at most 5 s).
         */
        patch: operations["patchV1WorkspacesByWorkspaceChannelsByChannel"];
        trace?: never;
    };
    "/v1/workspaces/{workspace}/channels/{channel}/mute": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Mute a channel for myself
         * @description No pushes to my devices for its events. 404 for a channel that does not exist.
         */
        put: operations["putV1WorkspacesByWorkspaceChannelsByChannelMute"];
        post?: never;
        /**
         * Unmute a channel for myself
         * @description Pushes for its events reach my devices again. Unmuting a channel that is not muted is no error.
         */
        delete: operations["deleteV1WorkspacesByWorkspaceChannelsByChannelMute"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an invitation by its link
         * @description What the page of the link shows before anyone signs in: the workspace, the address invited and the role.
         */
        get: operations["getV1InvitationsByToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List members
         * @description Each with their role, their devices and the channels they muted; every member may read it.
         */
        get: operations["getV1WorkspacesByWorkspaceMembers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a member, or leave
         * @description Anyone may leave; owners and admins remove others (only owners remove owners).
         */
        delete: operations["deleteV1WorkspacesByWorkspaceMembersByUserId"];
        options?: never;
        head?: never;
        /**
         * Change a member's role
         * @description Owners and admins; only owners make or unmake owners; the last owner stays.
         */
        patch: operations["patchV1WorkspacesByWorkspaceMembersByUserId"];
        trace?: never;
    };
    "/v1/workspaces/{workspace}/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List invitations, newest first
         * @description Pending, accepted, revoked and expired ones. Owners and admins.
         */
        get: operations["getV1WorkspacesByWorkspaceInvitations"];
        put?: never;
        /**
         * Invite someone by e-mail
         * @description E-mails a link (through SMTP_URL, or logged when unset) that makes its holder a member once they sign in or sign up with that address. E-mails are throttled per recipient and per inviter (429 with Retry-After).
         */
        post: operations["postV1WorkspacesByWorkspaceInvitations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/invitations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an invitation
         * @description Its link stops working at once. Owners and admins.
         */
        delete: operations["deleteV1WorkspacesByWorkspaceInvitationsById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations/{token}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invitation
         * @description Signed in with the invited address.
         */
        post: operations["postV1InvitationsByTokenAccept"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys by prefix, with creation, last use and revocation
         * @description Every member may read the list; revoked keys included.
         */
        get: operations["getV1WorkspacesByWorkspaceKeys"];
        put?: never;
        /**
         * Create an API key
         * @description The key is in the answer, and never again. Owners and admins. A workspace has at most HERALD_MAX_API_KEYS_PER_WORKSPACE live keys (100 by default); revoked keys do not count.
         */
        post: operations["postV1WorkspacesByWorkspaceKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Takes effect at once on every instance that hears it over NATS (and on the embedded default); an instance that does not (no NATS, or NATS away) within API_KEY_CACHE_TTL_MS (at most 5 s). Owners and admins.
         */
        delete: operations["deleteV1WorkspacesByWorkspaceKeysById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/routers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a workspace's routers, oldest first, without their secrets
         * @description Destinations are shown redacted: their type, the origin of a URL, header names, recipients.
         */
        get: operations["getV1WorkspacesByWorkspaceRouters"];
        put?: never;
        /**
         * Create a router
         * @description Forwards the events whose `event` key matches `pattern` to `destination`. The answer holds the signing secret, shown only this once. 409 when the name is taken, or when the workspace has HERALD_MAX_ROUTERS_PER_WORKSPACE routers.
         */
        post: operations["postV1WorkspacesByWorkspaceRouters"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/routers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a router, without its secrets
         * @description Its destination redacted, as in the list.
         */
        get: operations["getV1WorkspacesByWorkspaceRoutersById"];
        put?: never;
        post?: never;
        /**
         * Delete a router
         * @description Its past deliveries stay readable on their events.
         */
        delete: operations["deleteV1WorkspacesByWorkspaceRoutersById"];
        options?: never;
        head?: never;
        /**
         * Change a router
         * @description Absent fields are kept. Takes effect for the events that arrive after the answer.
         */
        patch: operations["patchV1WorkspacesByWorkspaceRoutersById"];
        trace?: never;
    };
    "/v1/workspaces/{workspace}/routers/{id}/deliveries/settle": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fail or cancel a router's pending deliveries
         * @description Every delivery of the router still pending (retrying, or held while its destination fails) ends at once, `failed` or `cancelled`. A retry under way records its attempt but leaves the delivery as set here.
         */
        post: operations["postV1WorkspacesByWorkspaceRoutersByIdDeliveriesSettle"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/routers/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Preview what a destination would receive
         * @description Renders the destination's payload, with the template, for a sample event; nothing is sent.
         */
        post: operations["postV1WorkspacesByWorkspaceRoutersPreview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/routers/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event through a router
         * @description Sends one sample event to the router's destination now (enabled or not), and answers what came back. It is not recorded as a delivery. Owners and admins.
         */
        post: operations["postV1WorkspacesByWorkspaceRoutersByIdTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/feed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the feed
         * @description A workspace's events, newest first, with optional filters, each with its deliveries counted by state and its read state for you (`status`); every member may read it. An event sent `to` people is in the feed of its recipients and of the workspace's owners and admins only. `counts` holds your unread counts, whatever the filters, each counted up to 1000 (1000 means at least 1000).
         */
        get: operations["getV1Feed"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/feed/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow the feed live (Server-Sent Events)
         * @description Each new event that passes the filters and that I may see (one sent `to` people: its recipients, owners and admins) as an SSE "event" message whose data is the event; a `read` message when your read state changes (on any of your devices): `{"eventIds": [...], "status": "read"|"archived"}`, with `before` (and `channel`) when everything up to an event was marked, whatever the stream's filters; a comment every few seconds keeps the connection open. The stream ends (an "ended" message, then the end of the response) as soon as its session is signed out or ended by a password reset, or its person is removed from the workspace. Best effort: after a reconnect, read the feed to fill any gap. At most 10 open at once per person (429 past that).
         */
        get: operations["getV1FeedStream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/feed/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark events read
         * @description Marks events read for you (every member has their own read state), on all your devices: your other live streams get a `read` message within a second, and the installed app closes the notifications of these events on your other devices. Send `{"eventIds": [...]}` (at most 100), or `{"before": "<eventId>", "channel": "<slug>"}` for every event up to that one, that one included (`channel` optional: all channels); "mark all read" passes the newest event's id. The answer says what changed and your unread counts after it.
         */
        post: operations["postV1WorkspacesByWorkspaceFeedRead"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/feed/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Archive events
         * @description Marks events archived for you (every member has their own read state), on all your devices: your other live streams get a `read` message within a second, and the installed app closes the notifications of these events on your other devices. Send `{"eventIds": [...]}` (at most 100), or `{"before": "<eventId>", "channel": "<slug>"}` for every event up to that one, that one included (`channel` optional: all channels); "mark all archived" passes the newest event's id. Archived implies read. The answer says what changed and your unread counts after it.
         */
        post: operations["postV1WorkspacesByWorkspaceFeedArchive"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/events/{eventId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An event with its delivery log
         * @description Every push and router delivery with every attempt, and the recipients of an event sent `to` people. The dashboard shows it at /w/{workspace}/events/{eventId}.
         */
        get: operations["getV1WorkspacesByWorkspaceEventsByEventId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/scheduled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the workspace's scheduled events
         * @description Owners and admins: the events scheduled (`deliverAt` / `delay`) that have not gone out, soonest first, a page at a time.
         */
        get: operations["getV1WorkspacesByWorkspaceScheduled"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/scheduled/{eventId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Cancel a scheduled event
         * @description Owners and admins: as DELETE /events/{eventId} with the API key; 409 once it went out.
         */
        delete: operations["deleteV1WorkspacesByWorkspaceScheduledByEventId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/receipts/{receipt}/ack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Acknowledge a receipt
         * @description Stops the event's repeats for everyone, on every instance, within one `retry`. The first acknowledgement wins; any member may give it. The body, optional, says where it was acknowledged (`{"via": "push"}` from a notification).
         */
        post: operations["postV1WorkspacesByWorkspaceReceiptsByReceiptAck"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/receipts/{receipt}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a receipt as a member
         * @description Its state, who acknowledged it and how, and its pushes so far: what the dashboard shows on the event's page and in the feed.
         */
        get: operations["getV1WorkspacesByWorkspaceReceiptsByReceipt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/deliveries/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay a delivery
         * @description Sends a failed (or succeeded) delivery again, under the same id, with a fresh retry schedule. Owners and admins.
         */
        post: operations["postV1WorkspacesByWorkspaceDeliveriesByIdReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List deliveries
         * @description A workspace's deliveries to routers and devices across its events, newest event first, with optional filters; every member may read them, except those of an event sent `to` people, which only its recipients and the workspace's owners and admins see. Each attempt of a delivery is in its event's log (GET /v1/workspaces/{workspace}/events/{eventId}).
         */
        get: operations["getV1WorkspacesByWorkspaceDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/deliveries/counts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Count the deliveries of events by state
         * @description What the feed shows of each event's deliveries, for refreshing it: the same counts as `deliveryCounts` in GET /v1/feed.
         */
        get: operations["getV1WorkspacesByWorkspaceDeliveriesCounts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/deliveries/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay failed deliveries
         * @description Sends again the failed deliveries that match the filter (the query of GET …/deliveries, as a body), newest event first, at most 1000 a call: each under its own id, with a fresh retry schedule, like the replay of one delivery. Two calls at once replay each delivery once. With "dryRun": true, only counts them. Owners and admins.
         */
        post: operations["postV1WorkspacesByWorkspaceDeliveriesReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspace}/preferences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * My preferences
         * @description Quiet hours, a level per channel and the default level, for this workspace. Muted channels show as none.
         */
        get: operations["getV1WorkspacesByWorkspacePreferences"];
        /**
         * Replace my preferences
         * @description Replaces the whole document (a field left out takes its default). A push held back by a preference is recorded as a `suppressed` delivery with the reason, never failed; the event stays in the feed. Pushes from a second later follow the change. 400 at its pointer for an unknown time zone, a time out of range, from equal to to, an except outside 1-5, an unknown level, or a channel the workspace does not have.
         */
        put: operations["putV1WorkspacesByWorkspacePreferences"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AcceptedInvitation: {
            workspace: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
        };
        AckReceiptBody: {
            /** @description Where the person acknowledged it, as `acknowledgedVia` records it: `push` from a notification's action. Default: `web` with a web session, `api` with an app token. */
            via?: "web" | "push" | "api";
        };
        /** @description Makes the event require acknowledgement: the 200 answer holds a `receipt`. */
        AckSpec: {
            /**
             * @description Seconds (or a duration: 90s, 15m, 2h) between repeats; at least 30 s.
             * @example 60
             * @example 1m
             */
            retry: number | string;
            /**
             * @description How long the event repeats unless acknowledged: at least `retry`, at most 10800 s (3 h) unless the operator raises it (HERALD_MAX_ACK_EXPIRE).
             * @example 3600
             * @example 1h
             */
            expire: number | string;
            /** @description Up to 3 steps. */
            escalate?: {
                /**
                 * @description When this step starts, counted from the event: shorter than `expire`.
                 * @example 10m
                 */
                after: number | string;
                /**
                 * @description Slug of a channel whose members are pushed too, from then on.
                 * @example oncall
                 */
                channel: string;
            }[];
        };
        AddedMember: {
            /** Format: uuid */
            userId: string;
            /** @description Bearer token of this user on the device API; shown once. */
            userToken: string;
        };
        ApiKey: {
            id: number;
            name: string;
            /** @description The first 12 characters of the key, to recognise it. */
            prefix: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            lastUsedAt: string | null;
            /** Format: date-time */
            revokedAt: string | null;
        };
        /** @description At most 4194304 bytes (4 MiB). */
        BatchBody: {
            /** @description 1 to 1000 events, answered in this order. */
            events: components["schemas"]["BatchItem"][];
        };
        /** @description An event, exactly the body of POST /event, plus an optional `idempotencyKey`. */
        BatchItem: {
            /**
             * @description Notification body. Truncated to 500 characters (code points). Must not be blank.
             * @example Jane Doe signed up
             */
            message: string;
            event?: string | null;
            channel?: string | null;
            title?: string | null;
            link?: string | null;
            tags?: string[] | null;
            data?: {
                [key: string]: unknown;
            } | null;
            /**
             * @description How urgent the event is: 1-5, or min, low, default, high, urgent. Absent or null is 3. Each push carries the headers of its priority (docs/push.md); routers may forward only events at or above their `minPriority`.
             * @example 4
             * @example urgent
             */
            priority?: number | ("min" | "low" | "default" | "high" | "urgent") | null;
            /**
             * @description How long the notification is worth sending, in seconds (0-2419200) or as a duration (90s, 15m, 2h, 7d). A push or router delivery not sent by then ends `expired`. Returned as seconds.
             * @example 3600
             * @example 15m
             */
            ttl?: number | string | null;
            collapseKey?: string | null;
            ack?: components["schemas"]["AckSpec"] | null;
            /**
             * @description Send to these members only: up to 100, each a member's e-mail address or `user:<userId>`. Only they are pushed, and only they and the workspace's owners and admins see the event (feed, stream, event page, deliveries). A recipient who is not a member is dropped and reported in `errors`; none left is a 400. Absent or null: the channel's whole audience.
             * @example [
             *       "jane@example.com",
             *       "user:0196f3c2-5b1e-7c2a-9d4e-3f2a1b0c9d8e"
             *     ]
             */
            to?: string[] | null;
            deliverAt?: string | null;
            /**
             * @description Schedules the event this long from now: seconds or a duration (90s, 30m, 2h, 7d), at least 10 s, at most HERALD_MAX_SCHEDULE (30 days). Not with `deliverAt`.
             * @example 30m
             * @example 600
             */
            delay?: number | string | null;
            idempotencyKey?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description An event that was not stored, as an RFC 9457 problem; pointers start with /events/<index>. */
        BatchItemProblem: {
            /**
             * @description What POST /event would have answered for this event.
             * @example 400
             */
            status: number;
            /**
             * Format: uri
             * @example https://herald.dev/problems/validation-failed
             */
            type: string;
            /** @example Validation Failed */
            title: string;
            /** @example message must not be empty */
            detail: string;
            errors?: {
                /** @example /events/3/message */
                pointer: string;
                detail: string;
            }[];
        };
        BatchResult: {
            /** @description One result per event, in request order. */
            results: (components["schemas"]["SubmitResult"] | components["schemas"]["BatchItemProblem"])[];
        };
        BulkReplayBody: {
            /** @description Only deliveries in this state. pending: due, or waiting for a retry; failed: failed for good (replayable); cancelled: ended by an owner; expired: not sent, the event being older than its ttl when its turn came; suppressed: a push not sent because of the member's preferences (last error says which); throttled: not sent, its router's throttle was reached for its key; digested: its event went out inside a digest (the digest's own delivery has kind digest). */
            state?: "pending" | "succeeded" | "failed" | "cancelled" | "expired" | "suppressed" | "throttled" | "digested";
            /** @description Only the deliveries of this router (its id). */
            router?: string;
            /** @description Only the pushes to this device (its id). */
            device?: string;
            /**
             * @description Only deliveries of events created at or after this time.
             * @example 2025-06-01T00:00:00Z
             */
            since?: string;
            /**
             * @description Only deliveries of events created at or before this time.
             * @example 2025-06-01T00:00:00Z
             */
            until?: string;
            /** @description Only count the failed deliveries that would be replayed. */
            dryRun?: boolean;
        };
        BulkReplayResult: {
            /** @description Failed deliveries that match the filter, counted up to 1000. */
            matched: number;
            /** @description Of them, those sent again now: 0 on a dry run, and fewer than matched when a replay at the same time took some. */
            replayed: number;
            /** @description More than 1000 matched: call again to replay the rest. */
            more: boolean;
        };
        CancelledEvent: {
            /** Format: uuid */
            eventId: string;
            /** @constant */
            status: "cancelled";
            /**
             * Format: date-time
             * @description When it would have gone out.
             */
            scheduledFor: string;
        };
        ChangePasswordBody: {
            /** @description The password the account has now. */
            currentPassword: string;
            /** @description At least 10 characters. */
            newPassword: string;
        };
        ChangeRoleBody: {
            /** @description The new role. */
            role: "owner" | "admin" | "member";
        };
        Channel: {
            slug: string;
            /** @description Events that name no channel go here. */
            isDefault: boolean;
            /** @description Whether you muted it: no pushes to your devices for its events. */
            muted: boolean;
            /** Format: date-time */
            createdAt: string;
        };
        ChannelPage: {
            channels: components["schemas"]["Channel"][];
            /** @description Pass as `cursor` for the next page; null at the end. */
            nextCursor: string | null;
        };
        ChannelSlug: {
            slug: string;
        };
        CreateApiKeyBody: {
            /** @description What the key is for, such as "production". */
            name: string;
        };
        CreateChannelBody: {
            /**
             * @description Lower-case slug, as events name it.
             * @example signups
             */
            slug: string;
        };
        CreatedApiKey: {
            id: number;
            name: string;
            prefix: string;
            /** @description Shown this once; only its hash is stored. */
            apiKey: string;
        };
        CreatedInvitation: {
            id: string;
            email: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            expiresAt: string;
            /** @description The link e-mailed to them, to pass on another way if need be. */
            link: string;
        };
        CreatedRouter: {
            /**
             * Format: uuid
             * @description Router id (UUIDv7).
             */
            id: string;
            /**
             * @description The signing secret (Standard Webhooks, `whsec_…`) with which webhook deliveries are signed. Shown only this once.
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
        };
        CreatedWorkspace: {
            /** @example acme */
            workspace: string;
            /** @example general */
            defaultChannel: string;
            /** @description The first API key. Shown once; only its hash is stored. */
            apiKey: string;
        };
        CreateInvitationBody: {
            /**
             * @description The address the invitation is e-mailed to.
             * @example jane@example.com
             */
            email: string;
            role?: "owner" | "admin" | "member";
        };
        CreateRouterBody: {
            /**
             * @description Unique in the workspace; a label for people and the CLI.
             * @example signups
             */
            name: string;
            /**
             * @description Glob on the event's `event` key: `*` matches any run of characters, dots included (`user.*` matches `user.signup` and `user.a.b`, not `user`). `*` alone also matches events without a key. At most 200 of A-Z a-z 0-9 _ . : - *.
             * @example user.*
             */
            pattern: string;
            /**
             * @description Where matching events go; `type` (one of webhook, slack, discord, teams, telegram, email, sms) selects the other fields. Stored encrypted; only a redacted view is ever returned.
             * @example {
             *       "type": "webhook",
             *       "url": "https://example.com/hooks/herald"
             *     }
             */
            destination: {
                /** @constant */
                type: "webhook";
                /**
                 * Format: uri
                 * @description Receiver URL; POSTed a JSON body signed per Standard Webhooks.
                 */
                url: string;
                /** @description Extra request headers, such as an Authorization the receiver expects: names are tokens (letters, digits and !#$%&'*+-.^_`|~), values printable ASCII without line breaks. */
                headers?: {
                    [key: string]: unknown | string;
                };
            } | {
                /** @constant */
                type: "slack";
                /**
                 * Format: uri
                 * @description Slack incoming-webhook URL (https://hooks.slack.com/services/…).
                 */
                url: string;
            } | {
                /** @constant */
                type: "discord";
                /**
                 * Format: uri
                 * @description Discord webhook URL (https://discord.com/api/webhooks/…).
                 */
                url: string;
            } | {
                /** @constant */
                type: "teams";
                /**
                 * Format: uri
                 * @description Microsoft Teams Workflows (or incoming-webhook) URL; receives an Adaptive Card.
                 */
                url: string;
            } | {
                /** @constant */
                type: "telegram";
                /** @description Bot API token from @BotFather. */
                botToken: string;
                /** @description Chat id or @channelusername. */
                chatId: string | number;
            } | {
                /** @constant */
                type: "email";
                /** @description Recipients. */
                to: string[];
                /** @description Sender; default SMTP_FROM. */
                from?: string;
                /** @description SMTP server; default SMTP_URL. */
                smtp?: {
                    host: string;
                    port: number;
                    /** @description TLS from the first byte (port 465). Otherwise STARTTLS when offered. */
                    secure?: boolean;
                    user?: string;
                    pass?: string;
                };
            } | {
                /** @constant */
                type: "sms";
                /** @description Twilio account SID. */
                accountSid: string;
                /** @description Twilio auth token. */
                authToken: string;
                /** @description Sending number, E.164. */
                from: string;
                /** @description Recipient number, E.164. */
                to: string;
            };
            /**
             * @description Mustache templates of the title and body (`{{message}}`, `{{event}}`, `{{data.plan}}`…). Omitted or null: the default rendering.
             * @example {
             *       "title": "New signup",
             *       "body": "{{data.email}} joined on {{data.plan}}"
             *     }
             */
            template?: {
                /** @description Mustache template of the title (`{{data.plan}}`, `{{event}}`…). */
                title?: string;
                /** @description Mustache template of the body. For a webhook it replaces the whole JSON body. */
                body?: string;
            } | null;
            /** @description Default true. A disabled router matches nothing. */
            enabled?: boolean;
            /**
             * @description Forwards only events whose `priority` is at or above it (1 min, 2 low, 3 default, 4 high, 5 urgent; an event without one is 3). Default 1: every event.
             * @example 4
             */
            minPriority?: number;
            /** @description Also send this router a delivery when a receipt of an event it forwarded ends: webhooks get `{"type": "receipt.acknowledged"|"receipt.expired"|"receipt.cancelled", "timestamp", "data": <the receipt>}`, chat destinations one line. Default false. */
            receipts?: boolean;
            /** @description At most `limit` deliveries per `per` and rendered `key`; the rest end `throttled`: recorded, visible, never sent. Null: no throttle. */
            throttle?: {
                /**
                 * @description At most this many deliveries per window and key (1-10000).
                 * @example 5
                 */
                limit: number;
                /**
                 * @description The window: seconds or a duration, 1s to 1d. It starts with the first event of its key. Read back as seconds.
                 * @example 1h
                 * @example 3600
                 */
                per: number | string;
                /**
                 * @description A template over the event (`{{data.host}}`, `{{channel}}`…), up to 200 characters: each rendered value counts apart (cut to 200 characters). Omitted or "": one key for every event.
                 * @example {{data.host}}
                 */
                key?: string;
            } | null;
            /** @description Gathers the matching events per rendered `key` and sends them as one delivery when the window ends or `max` is reached (webhooks: `{"type": "events.digest", "timestamp", "data": {"key", "count", "events"}}`; templates see `{{count}}` and `{{#events}}…{{/events}}`). Null: every event goes on its own. */
            digest?: {
                /**
                 * @description How long events are gathered: seconds or a duration, 10s to 1d, from the first event of its key. Read back as seconds.
                 * @example 10m
                 * @example 600
                 */
                window: number | string;
                /**
                 * @description A template over the event (`{{data.host}}`, `{{channel}}`…), up to 200 characters: each rendered value counts apart (cut to 200 characters). Omitted or "": one key for every event.
                 * @example {{data.host}}
                 */
                key?: string;
                /** @description A digest goes at once when it holds this many events (1-1000, default 100). */
                max?: number;
                /** @description Events at or above this priority are not gathered: they go at once, on their own. Absent: every event is gathered. */
                bypassPriority?: number;
            } | null;
        };
        CreateWorkspaceBody: {
            /**
             * @description Lower-case slug, unique on this Herald.
             * @example acme
             */
            name: string;
        };
        Delivery: {
            /**
             * Format: uuid
             * @description Stable across attempts and duplicates; sent to webhooks as `webhook-id`.
             */
            id: string;
            /** @enum {string} */
            kind: "router" | "push" | "receipt" | "digest";
            /**
             * Format: uuid
             * @description For a router delivery.
             */
            routerId: string | null;
            /**
             * Format: uuid
             * @description For a push: the device (kept after the device is removed).
             */
            deviceId: string | null;
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed" | "cancelled" | "expired" | "suppressed" | "throttled" | "digested";
            /** @description A suppressed push: which of its member's preferences held it back (muted, a channel level, quiet hours). */
            reason: string | null;
            /**
             * Format: date-time
             * @description When a pending delivery is next attempted.
             */
            nextAttemptAt: string | null;
            /**
             * Format: uuid
             * @description A digested delivery (its router gathers events into digests): the id of the digest delivery that carried this event.
             */
            digestId?: string;
            /**
             * Format: uuid
             * @description A digested delivery: the id of the digest's first event, whose page (`GET /events/{eventId}`) lists the digest's delivery (this event's own, when it was the first).
             */
            digestEventId?: string;
            digest?: components["schemas"]["DigestInfo"];
            attempts: components["schemas"]["DeliveryAttempt"][];
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        DeliveryAttempt: {
            /** @description 1-based; starts again at 1 after a replay. */
            attempt: number;
            /** Format: date-time */
            at: string;
            durationMs: number;
            ok: boolean;
            /** @description HTTP status (or SMTP reply code) received, if any. */
            status: number | null;
            /** @description Why the attempt failed. */
            error: string | null;
            /** @description The first KiB of the response body. */
            response: string | null;
        };
        /** @description The event's deliveries (one per matching router and pushed device) by state; all zero when nothing was delivered, or not yet. */
        DeliveryCounts: {
            /** @description Deliveries still to be made: a first attempt or a retry is due. */
            pending: number;
            succeeded: number;
            /** @description Deliveries that failed for good; owners and admins can replay them. */
            failed: number;
            /** @description Deliveries not sent because the event was older than its `ttl` when their turn came; present only when some expired. */
            expired?: number;
            /** @description Pushes not sent because of members' preferences (a muted channel, a channel level above the event's priority, quiet hours); present only when some were. */
            suppressed?: number;
            /** @description Router deliveries not sent because the router's throttle was reached for their key; present only when some were. */
            throttled?: number;
            /** @description Router deliveries whose event went out inside a digest; present only when some were. */
            digested?: number;
        };
        /** @description By event id; an event of another workspace, or one sent `to` people that I may not see, counts zeros. */
        DeliveryCountsByEvent: {
            [key: string]: components["schemas"]["DeliveryCounts"];
        };
        DeliveryListItem: {
            /**
             * Format: uuid
             * @description Stable across attempts and replays; sent to webhooks as `webhook-id`.
             */
            id: string;
            /** Format: uuid */
            eventId: string;
            /** @enum {string} */
            kind: "router" | "push" | "receipt" | "digest";
            /**
             * Format: uuid
             * @description For a router delivery.
             */
            routerId: string | null;
            /**
             * Format: uuid
             * @description For a push: the device.
             */
            deviceId: string | null;
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed" | "cancelled" | "expired" | "suppressed" | "throttled" | "digested";
            /** @description Attempts made, those before a replay included; attempts are numbered on across replays. */
            attemptCount: number;
            /** @description HTTP status (or SMTP reply code) of the last attempt, if one came back. */
            lastStatus: number | null;
            /** @description Why the last attempt failed; for a suppressed push, which preference held it back. */
            lastError: string | null;
            /**
             * Format: date-time
             * @description When a pending delivery is tried next.
             */
            nextAttemptAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /**
             * Format: uuid
             * @description A digested delivery: the id of the digest delivery that carried its event.
             */
            digestId?: string;
            /**
             * Format: uuid
             * @description A digested delivery: the id of the digest's first event, whose page (`GET /events/{eventId}`) lists the digest's delivery.
             */
            digestEventId?: string;
            digest?: components["schemas"]["DigestInfo"];
            /** @description What the event was; null once it is past retention. */
            event: {
                title: string | null;
                /** @description The first 200 characters. */
                message: string;
                event: string | null;
                channel: string;
                /** Format: date-time */
                createdAt: string;
            } | null;
        };
        DeliveryPage: {
            deliveries: components["schemas"]["DeliveryListItem"][];
            /** @description Pass as `cursor` for the next (older) page; null at the end. */
            nextCursor: string | null;
        };
        DeliverySummary: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            eventId: string;
            /** @description router, push (to a device), receipt, or digest (a router's gathered events, as one delivery). */
            kind: string;
            /** Format: uuid */
            routerId: string | null;
            /** @description The device of a push; absent from the failed list. */
            deviceId?: string | null;
            /** @description HTTP status of the last attempt; absent from the failed list. */
            lastStatus?: number | null;
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed" | "cancelled" | "expired" | "suppressed" | "throttled" | "digested";
            lastError: string | null;
            attemptCount: number;
            /**
             * Format: date-time
             * @description When a pending delivery is tried next; absent from the failed list.
             */
            nextAttemptAt?: string | null;
            /** Format: date-time */
            createdAt: string;
            /**
             * Format: date-time
             * @description When it last changed: for a failed one, when it failed.
             */
            updatedAt: string;
            /**
             * Format: uuid
             * @description A digested delivery: the id of the digest delivery that carried its event.
             */
            digestId?: string;
            /**
             * Format: uuid
             * @description A digested delivery: the id of the digest's first event, whose page (`GET /events/{eventId}`) lists the digest's delivery.
             */
            digestEventId?: string;
            digest?: components["schemas"]["DigestInfo"];
            /** @description What the list shows of its event (null once the event is gone); absent from the failed list. */
            event?: {
                title: string | null;
                /** @description Its first 200 characters. */
                message: string;
                event: string | null;
                channel: string;
                /** Format: date-time */
                createdAt: string;
            } | null;
        };
        Device: {
            /** Format: uuid */
            id: string;
            platform: string;
            provider: string;
            environment: string;
            topic: string | null;
            /** @description The first 8 characters of the token (of the endpoint for webpush). */
            tokenPrefix: string;
            /** @description webpush only: the subscription's endpoint, so the app can find its own device. */
            endpoint: string | null;
            /**
             * Format: date-time
             * @description Last registration or refresh.
             */
            lastSeenAt: string;
            /** Format: date-time */
            createdAt: string;
        };
        DeviceBody: {
            /** @description The device's OS: ios or android for apns and fcm (required), web for webpush (the default). */
            platform?: "ios" | "android" | "web";
            /** @description apns for iOS (Apple Push Notification service), fcm for Firebase Cloud Messaging, webpush for a browser or the installed web app. */
            provider: "apns" | "fcm" | "webpush";
            /** @description apns and fcm: the push token the OS gave the app. */
            token?: string;
            subscription?: components["schemas"]["PushSubscription"];
            /** @description APNs only: sandbox for development builds; production when absent. */
            environment?: "sandbox" | "production";
            /** @description APNs only: the app's bundle id, when it differs from APNS_TOPIC. */
            topic?: string;
        };
        /** @description A digest (kind digest): its key and its events. */
        DigestInfo: {
            /** @description The rendered key its events were gathered under ("" for one key). */
            key: string;
            /** @description Events in it. */
            count: number;
            /** @description Its events, oldest first. */
            eventIds: string[];
        };
        /** @description An event. `null` for an optional field means the field is absent; unknown properties are dropped and reported in `errors`. */
        EventBody: {
            /**
             * @description Notification body. Truncated to 500 characters (code points). Must not be blank.
             * @example Jane Doe signed up
             */
            message: string;
            event?: string | null;
            channel?: string | null;
            title?: string | null;
            link?: string | null;
            tags?: string[] | null;
            data?: {
                [key: string]: unknown;
            } | null;
            /**
             * @description How urgent the event is: 1-5, or min, low, default, high, urgent. Absent or null is 3. Each push carries the headers of its priority (docs/push.md); routers may forward only events at or above their `minPriority`.
             * @example 4
             * @example urgent
             */
            priority?: number | ("min" | "low" | "default" | "high" | "urgent") | null;
            /**
             * @description How long the notification is worth sending, in seconds (0-2419200) or as a duration (90s, 15m, 2h, 7d). A push or router delivery not sent by then ends `expired`. Returned as seconds.
             * @example 3600
             * @example 15m
             */
            ttl?: number | string | null;
            collapseKey?: string | null;
            ack?: components["schemas"]["AckSpec"] | null;
            /**
             * @description Send to these members only: up to 100, each a member's e-mail address or `user:<userId>`. Only they are pushed, and only they and the workspace's owners and admins see the event (feed, stream, event page, deliveries). A recipient who is not a member is dropped and reported in `errors`; none left is a 400. Absent or null: the channel's whole audience.
             * @example [
             *       "jane@example.com",
             *       "user:0196f3c2-5b1e-7c2a-9d4e-3f2a1b0c9d8e"
             *     ]
             */
            to?: string[] | null;
            deliverAt?: string | null;
            /**
             * @description Schedules the event this long from now: seconds or a duration (90s, 30m, 2h, 7d), at least 10 s, at most HERALD_MAX_SCHEDULE (30 days). Not with `deliverAt`.
             * @example 30m
             * @example 600
             */
            delay?: number | string | null;
        } & {
            [key: string]: unknown;
        };
        EventWithDeliveries: {
            /** Format: uuid */
            eventId: string;
            workspace: string;
            channel: string;
            event: string | null;
            title: string | null;
            message: string;
            link: string | null;
            tags: string[];
            data: {
                [key: string]: unknown;
            } | null;
            /** Format: date-time */
            createdAt: string;
            /** @description How urgent the event is: 1 (min) to 5 (urgent); 3 when it was not given. */
            priority: number;
            /** @description Seconds the notification was worth sending, when given. */
            ttl: number | null;
            /** @description A newer event with the same key replaced it on devices. */
            collapseKey: string | null;
            /**
             * Format: uuid
             * @description Its receipt, when it must be acknowledged.
             */
            receipt: string | null;
            /** @description When it was sent `to` people: the user ids of its recipients (the members its `to` resolved to). Only they and the workspace's owners and admins see it. null: sent to the channel. */
            to: string[] | null;
            /**
             * Format: date-time
             * @description Only on a scheduled event (`deliverAt` / `delay`): the time it goes (or went) out, which is also its `createdAt`. Router templates read it as {{scheduledFor}}.
             */
            scheduledFor?: string;
            /** @description The recipients of `to` with their e-mail addresses, by address (a user deleted since is left out); null when it was sent to the channel. */
            recipients: {
                /** Format: uuid */
                userId: string;
                email: string;
            }[] | null;
            /** @description One per matching router (and, with push, per device); empty until the event is fanned out. */
            deliveries: components["schemas"]["Delivery"][];
        };
        FeedEvent: {
            /** Format: uuid */
            eventId: string;
            workspace: string;
            channel: string;
            event: string | null;
            title: string | null;
            message: string;
            link: string | null;
            tags: string[];
            data: {
                [key: string]: unknown;
            } | null;
            /** Format: date-time */
            createdAt: string;
            /** @description How urgent the event is: 1 (min) to 5 (urgent); 3 when it was not given. */
            priority: number;
            /** @description Seconds the notification was worth sending, when given. */
            ttl: number | null;
            /** @description A newer event with the same key replaced it on devices. */
            collapseKey: string | null;
            /**
             * Format: uuid
             * @description Its receipt, when it must be acknowledged.
             */
            receipt: string | null;
            /** @description When it was sent `to` people: the user ids of its recipients (the members its `to` resolved to). Only they and the workspace's owners and admins see it. null: sent to the channel. */
            to: string[] | null;
            /**
             * Format: date-time
             * @description Only on a scheduled event (`deliverAt` / `delay`): the time it goes (or went) out, which is also its `createdAt`. Router templates read it as {{scheduledFor}}.
             */
            scheduledFor?: string;
            /** @enum {string} */
            status: "unread" | "read" | "archived";
            deliveryCounts: components["schemas"]["DeliveryCounts"];
        };
        FeedPage: {
            events: components["schemas"]["FeedEvent"][];
            /** @description Pass as `before` for the next (older) page; null at the end. */
            nextCursor: string | null;
            counts: components["schemas"]["UnreadCounts"];
        };
        /** @description One thing wrong with the request: a field of the body or a parameter. */
        FieldError: {
            /**
             * @description A JSON pointer into the request body (RFC 6901); "" is the whole body.
             * @example /message
             */
            pointer?: string;
            /**
             * @description The path or query parameter, or the request header, at fault.
             * @example limit
             */
            parameter?: string;
            /**
             * @description What is wrong with it, in words.
             * @example message must not be empty
             */
            detail: string;
        };
        Invitation: {
            /** Format: uuid */
            id: string;
            email: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            invitedBy: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            expiresAt: string;
            /** @enum {string} */
            status: "pending" | "accepted" | "revoked" | "expired";
        };
        InvitationPreview: {
            workspace: string;
            email: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
        };
        Liveness: {
            /** @constant */
            status: "ok";
        };
        /** @description Either `eventIds`, or `before` with an optional `channel`. */
        MarkEventsBody: {
            /** @description The events to mark, 1 to 100. */
            eventIds?: string[];
            /** @description Marks every event up to this one, this one included (pass the newest id to mark everything). */
            before?: string;
            /** @description With `before`: only this channel's events. */
            channel?: string;
        };
        MarkResult: {
            /** @enum {string} */
            status: "read" | "archived";
            /** @description Of the `eventIds` sent, those whose state moved on (an event already read, or archived, is left out; marking read never unarchives). */
            eventIds: string[];
            /**
             * Format: uuid
             * @description The `before` sent, or null.
             */
            before: string | null;
            /** @description The `channel` sent with `before`, or null (all channels). */
            channel: string | null;
            /** @description With `before`: whether it marked anything new (false when everything up to it already was). */
            moved: boolean;
            counts: components["schemas"]["UnreadCounts"];
        };
        Me: {
            userId: string;
            email: string;
            csrf?: string;
            workspaces: components["schemas"]["MyWorkspace"][];
        };
        Member: {
            /** Format: uuid */
            userId: string;
            email: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            /** @description Registered devices of this user (in any workspace). */
            devices: number;
            mutedChannels: string[];
            /** Format: date-time */
            createdAt: string;
        };
        MySession: {
            /** @description Pass to DELETE /v1/me/sessions/{sessionId} to end it. */
            id: number;
            /** @enum {string} */
            kind: "web" | "app";
            /** @description The User-Agent that opened it, cut to 200 characters; null when unknown. */
            userAgent: string | null;
            /** Format: date-time */
            createdAt: string;
            /**
             * Format: date-time
             * @description Recorded at most once a minute.
             */
            lastUsedAt: string | null;
            /**
             * Format: date-time
             * @description A web session slides 30 days from its last use; an app token has none (it ends after HERALD_APP_TOKEN_IDLE_DAYS unused).
             */
            expiresAt: string | null;
            /** @description The session of this request. */
            current: boolean;
        };
        MySessions: {
            sessions: components["schemas"]["MySession"][];
            /** @description Pass as `cursor` for the next page; null at the end. */
            nextCursor: string | null;
        };
        MyWorkspace: {
            workspace: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            defaultChannel: string;
        };
        OperatorAddMemberBody: {
            /**
             * @description The person's e-mail address; one user per address across workspaces.
             * @example jane@example.com
             */
            email: string;
            /** @default member */
            role: "owner" | "admin" | "member";
        };
        OperatorChannel: {
            slug: string;
            /** @description Events that name no channel go here. */
            isDefault: boolean;
            /** @description E-mail addresses of the members who muted it: their devices get no pushes for its events. */
            mutedBy: string[];
            /** Format: date-time */
            createdAt: string;
        };
        OperatorChannelPage: {
            channels: components["schemas"]["OperatorChannel"][];
            /** @description Pass as `cursor` for the next page; null at the end. */
            nextCursor: string | null;
        };
        OperatorCreateApiKeyBody: {
            /** @description A label, such as "production". */
            name?: string;
        };
        OperatorCreateChannelBody: {
            /**
             * @description Lower-case slug, as events name it.
             * @example deploys
             */
            slug: string;
        };
        OperatorCreatedApiKey: {
            id: number;
            prefix: string;
            /** @description Shown once; only its hash is stored. */
            apiKey: string;
        };
        OperatorCreatedInvitation: {
            /** Format: uuid */
            id: string;
            email: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            /** Format: date-time */
            expiresAt: string;
            /** @description The link e-mailed to them, to pass on another way if need be. It works once. */
            link: string;
        };
        OperatorCreateInvitationBody: {
            /**
             * @description The address the invitation is e-mailed to.
             * @example jane@example.com
             */
            email: string;
            /** @description The role they get on accepting; member when left out. */
            role?: "owner" | "admin" | "member";
        };
        OperatorCreateWorkspaceBody: {
            /**
             * @description Workspace name: a slug (lowercased; letters, digits, "-" and "_"; at most 64).
             * @example acme
             */
            name: string;
            /**
             * @description Events accepted per calendar month (UTC).
             * @example 10000
             */
            monthlyQuota?: number;
            rateLimit?: {
                /**
                 * @description Token refill rate, events per second.
                 * @example 100
                 */
                perSecond?: number;
                /**
                 * @description Bucket size: the most events accepted at once.
                 * @example 200
                 */
                burst?: number;
            };
        };
        OperatorUpdateChannelBody: {
            /**
             * @description A new slug: its past events and mutes move with it; events must use the new one.
             * @example deploys
             */
            slug?: string;
            /**
             * @description Make it the default channel.
             * @constant
             */
            default?: true;
        };
        OperatorWorkspace: {
            workspace: string;
            defaultChannel: string;
            monthlyQuota: number;
            rateLimit: components["schemas"]["RateLimit"];
            usage: {
                /** @description YYYY-MM (UTC) */
                period: string;
                used: number;
                remaining: number;
            };
            /** Format: date-time */
            createdAt: string;
        };
        PasswordResetBody: {
            /**
             * @description E-mail address.
             * @example jane@example.com
             */
            email: string;
        };
        PasswordResetConfirmBody: {
            /** @description The token from the link. */
            token: string;
            /** @description At least 10 characters. */
            password: string;
        };
        PipelineStatus: {
            /** @enum {string} */
            bus: "jetstream" | "in-process";
            /** @description null on the in-process bus. */
            jetstream: {
                stream: {
                    name: string;
                    /** @description Messages in the stream: each a committed batch of events, or part of a large one. */
                    messages: number;
                    /** @description Events those messages carry. */
                    events: number;
                    /** @description Their size. */
                    bytes: number;
                    firstSeq: number;
                    lastSeq: number;
                    /** @description Consumers of the stream. */
                    consumers: number;
                };
                /** @description The delivery workers' consumer: null while no worker has made it. */
                consumer: {
                    name: string;
                    /** @description num_pending: messages (batches) not yet handed to a worker. */
                    pending: number;
                    /** @description num_ack_pending: messages handed to workers, not yet acknowledged. */
                    ackPending: number;
                    /** @description num_redelivered: messages redelivered, not yet acknowledged. */
                    redelivered: number;
                    /** @description Pull requests waiting. */
                    waiting: number;
                    /** @description Deliveries to workers so far, redeliveries included (the delivered consumer sequence): it stands still while no worker takes anything. */
                    delivered: number;
                } | null;
            } | null;
            outbox: {
                /** @description Outbox rows waiting for the relay. */
                rows: number;
                /** @description Events in them. */
                events: number;
                /** @description Age of the oldest row; 0 when empty. */
                oldestAgeSeconds: number;
            };
            deliveries: {
                /** @description Pending deliveries whose next attempt is due now. */
                pendingDue: number;
                /** @description Pending deliveries waiting for a later attempt. */
                pendingLater: number;
                /** @description Succeeded deliveries of the last 24 h's events. */
                succeeded: number;
                /** @description Failed deliveries of the last 24 h's events. */
                failed: number;
            };
            /** @description The ten workspaces that used the largest share of their monthly quota, largest first. */
            nearestQuota: {
                workspace: string;
                /** @description Events this month (UTC). */
                used: number;
                /** @description Monthly quota. */
                quota: number;
                /** @description Share used, to one decimal; 100 for a quota of 0. */
                percent: number;
            }[];
        };
        Preferences: {
            /** @description Inside [from, to) only events at or above `except` are pushed; to before from crosses midnight. Daylight-saving days follow the wall clock. */
            quietHours: {
                /**
                 * @description An IANA time zone; the dashboard and the installed app fill in the browser's.
                 * @example Europe/Paris
                 */
                timezone: string;
                /**
                 * @description HH:MM, 00:00 to 23:59, on the wall clock of `timezone`.
                 * @example 22:00
                 */
                from: string;
                /**
                 * @description HH:MM, 00:00 to 23:59, on the wall clock of `timezone`.
                 * @example 07:00
                 */
                to: string;
                /** @description Events of this priority and up are pushed inside the window (left out: 5). */
                except: number;
            } | null;
            /** @description A level per channel slug (at most 1000); each must exist. A channel left out follows `default`. */
            channels: {
                [key: string]: "all" | "high" | "urgent" | "none";
            };
            /** @enum {string} */
            default: "all" | "high" | "urgent" | "none";
        };
        /**
         * @example {
         *       "quietHours": {
         *         "timezone": "Europe/Paris",
         *         "from": "22:00",
         *         "to": "07:00",
         *         "except": 5
         *       },
         *       "channels": {
         *         "ops": "high",
         *         "marketing": "none"
         *       },
         *       "default": "all"
         *     }
         */
        PreferencesBody: {
            /** @description Inside [from, to) only events at or above `except` are pushed; to before from crosses midnight. Daylight-saving days follow the wall clock. null or left out: no quiet hours. */
            quietHours?: {
                /**
                 * @description An IANA time zone; the dashboard and the installed app fill in the browser's.
                 * @example Europe/Paris
                 */
                timezone: string;
                /**
                 * @description HH:MM, 00:00 to 23:59, on the wall clock of `timezone`.
                 * @example 22:00
                 */
                from: string;
                /**
                 * @description HH:MM, 00:00 to 23:59, on the wall clock of `timezone`.
                 * @example 07:00
                 */
                to: string;
                /** @description Events of this priority and up are pushed inside the window (left out: 5). */
                except?: number;
            };
            /** @description A level per channel slug (at most 1000); each must exist. A channel left out follows `default`. */
            channels?: {
                [key: string]: "all" | "high" | "urgent" | "none";
            };
            /** @description The level of channels not in `channels` (left out: all). all: every event; high: priority 4 and 5; urgent: priority 5; none: no push (a mute). */
            default?: "all" | "high" | "urgent" | "none";
        };
        /** @description An RFC 9457 problem (application/problem+json). */
        Problem: {
            /**
             * Format: uri
             * @description What kind of problem: https://herald.dev/problems/ followed by one of unauthorized, invalid-credentials, forbidden, csrf-failed, signin-throttled, mail-throttled, too-many-streams, payload-too-large, invalid-content-type, unsupported-media-type, malformed-json, bad-request, validation-failed, rate-limited, quota-exceeded, idempotency-key-reused, not-found, method-not-allowed, conflict, limit-reached, channel-limit, receipt-limit, schedule-limit, event-sent, unavailable, internal. A program may branch on it.
             * @example https://herald.dev/problems/validation-failed
             */
            type: string;
            /**
             * @description The title of the type; the same for every problem of that type.
             * @example Validation Failed
             */
            title: string;
            /**
             * @description The HTTP status of the answer.
             * @example 400
             */
            status: number;
            /**
             * @description What went wrong, in words.
             * @example message must not be empty
             */
            detail: string;
            /** @description Each field or parameter at fault (at most 20); absent when the problem names none. */
            errors?: components["schemas"]["FieldError"][];
        };
        ProducerEvent: {
            /** Format: uuid */
            eventId: string;
            workspace: string;
            channel: string;
            event: string | null;
            title: string | null;
            message: string;
            link: string | null;
            tags: string[];
            data: {
                [key: string]: unknown;
            } | null;
            /** Format: date-time */
            createdAt: string;
            /** @description How urgent the event is: 1 (min) to 5 (urgent); 3 when it was not given. */
            priority: number;
            /** @description Seconds the notification was worth sending, when given. */
            ttl: number | null;
            /** @description A newer event with the same key replaced it on devices. */
            collapseKey: string | null;
            /**
             * Format: uuid
             * @description Its receipt, when it must be acknowledged.
             */
            receipt: string | null;
            /** @description When it was sent `to` people: the user ids of its recipients (the members its `to` resolved to). Only they and the workspace's owners and admins see it. null: sent to the channel. */
            to: string[] | null;
            /**
             * Format: date-time
             * @description Only on a scheduled event (`deliverAt` / `delay`): the time it goes (or went) out, which is also its `createdAt`. Router templates read it as {{scheduledFor}}.
             */
            scheduledFor?: string;
            /** @description The recipients of `to` with their e-mail addresses, by address (a user deleted since is left out); null when it was sent to the channel. */
            recipients: {
                /** Format: uuid */
                userId: string;
                email: string;
            }[] | null;
            /** @description One per matching router (and, with push, per device); empty until the event is fanned out. */
            deliveries: components["schemas"]["Delivery"][];
            /** @enum {string} */
            status?: "scheduled" | "cancelled";
        };
        /** @description A browser's PushSubscription as JSON (`subscription.toJSON()`). */
        PushSubscription: {
            /** @description The push service URL the browser gave (PushSubscription.endpoint); https only. */
            endpoint: string;
            /** @description As the browser gives it; ignored (a push service answers 404 or 410 once a subscription is gone). */
            expirationTime?: null | number;
            keys: {
                /** @description The browser's P-256 public key: 65 bytes, base64url. */
                p256dh: string;
                /** @description The subscription's auth secret: 16 bytes, base64url. */
                auth: string;
            };
        };
        RateLimit: {
            /**
             * @description Token refill rate, events per second.
             * @example 100
             */
            perSecond: number;
            /**
             * @description Bucket size: the most events accepted at once.
             * @example 200
             */
            burst: number;
        };
        Readiness: {
            status: "ready" | "draining" | "unavailable";
            database?: "ok" | "unreachable";
        };
        Receipt: {
            /**
             * Format: uuid
             * @description The receipt's id, as POST /event answered it.
             */
            receipt: string;
            /**
             * Format: uuid
             * @description The event that requires acknowledgement.
             */
            eventId: string;
            /** @enum {string} */
            status: "pending" | "acknowledged" | "expired" | "cancelled";
            /** Format: date-time */
            acknowledgedAt: string | null;
            /** @description The member who acknowledged it. */
            acknowledgedBy: {
                /** Format: uuid */
                userId: string;
                email: string;
            } | null;
            /** @enum {string|null} */
            acknowledgedVia: "web" | "push" | "link" | "api" | null;
            /**
             * Format: date-time
             * @description When it stops repeating unacknowledged: the event's time plus `ack.expire`.
             */
            expiresAt: string;
            /**
             * Format: date-time
             * @description When a device last received the event (its first push or a repeat).
             */
            lastPushAt: string | null;
            /** @description Device pushes so far that reached their push service: the first pushes and every repeat. */
            pushes: number;
            /** @description The channels of `ack.escalate` whose members are pushed too, in order. */
            escalated: string[];
        };
        RegisteredDevice: {
            /** Format: uuid */
            id: string;
        };
        RenameWorkspaceBody: {
            /**
             * @description The new name: a lower-case slug, unique on this Herald.
             * @example acme-prod
             */
            name: string;
        };
        ReplayedDelivery: {
            id: string;
            /** @constant */
            status: "pending";
        };
        Router: {
            /** Format: uuid */
            id: string;
            name: string;
            pattern: string;
            /**
             * @description The destination without its secrets: its type, the origin of a URL, header names, recipients.
             * @example {
             *       "type": "webhook",
             *       "url": "https://example.com/…"
             *     }
             */
            destination: {
                [key: string]: unknown;
            };
            template: {
                /** @description Mustache template of the title (`{{data.plan}}`, `{{event}}`…). */
                title?: string;
                /** @description Mustache template of the body. For a webhook it replaces the whole JSON body. */
                body?: string;
            } | null;
            enabled: boolean;
            /** @description Only events at or above this priority are forwarded; 1: every event. */
            minPriority: number;
            /** @description Whether it gets a delivery when a receipt of an event it forwarded ends. */
            receipts: boolean;
            /** @description At most `limit` deliveries per `per` seconds and rendered `key`; the rest end `throttled`. Null: none. */
            throttle: {
                limit: number;
                /** @description Seconds. */
                per: number;
                key: string;
            } | null;
            /** @description Matching events gathered per rendered `key` for `window` seconds (or until `max`) and sent as one delivery. Null: none. */
            digest: {
                /** @description Seconds. */
                window: number;
                key: string;
                max: number;
                bypassPriority?: number;
            } | null;
            /** @description Null while its destination takes deliveries. Cleared by a success, a new destination, or enabling it again. */
            health: {
                /** @enum {string} */
                state: "circuit-open" | "failing" | "disabled";
                /**
                 * Format: date-time
                 * @description When its destination began to fail (no success since).
                 */
                since: string;
                /** @description The last failed attempt's error. */
                lastError: string | null;
                /** Format: date-time */
                lastFailureAt: string;
                /**
                 * Format: date-time
                 * @description No delivery goes to it before then, but one trial.
                 */
                openUntil: string;
            } | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        RouterPreview: {
            event: unknown;
            contentType: string;
            body: string;
        };
        RouterPreviewBody: {
            destination: {
                /** @description One of webhook, slack, discord, teams, telegram, email, sms. */
                type: string;
            } & {
                [key: string]: unknown;
            };
            template?: {
                title?: string;
                body?: string;
            } | null;
            /** @description Fields of the sample event to replace. */
            sample?: {
                event?: string;
                title?: string;
                message?: string;
                link?: string;
                tags?: string[];
                data?: {
                    [key: string]: unknown;
                };
                /** @description The sample's priority: 4 and 5 show the chat markers and the e-mail headers. */
                priority?: number;
            };
        };
        RouterTestResult: {
            ok: boolean;
            status: number | null;
            durationMs: number;
            response: string | null;
            error: string | null;
            event: unknown;
        };
        ScheduledEvent: {
            /** Format: uuid */
            eventId: string;
            workspace: string;
            channel: string;
            event: string | null;
            title: string | null;
            message: string;
            link: string | null;
            tags: string[];
            data: {
                [key: string]: unknown;
            } | null;
            /** Format: date-time */
            createdAt: string;
            /** @description How urgent the event is: 1 (min) to 5 (urgent); 3 when it was not given. */
            priority: number;
            /** @description Seconds the notification was worth sending, when given. */
            ttl: number | null;
            /** @description A newer event with the same key replaced it on devices. */
            collapseKey: string | null;
            /**
             * Format: uuid
             * @description Its receipt, when it must be acknowledged.
             */
            receipt: string | null;
            /** @description When it was sent `to` people: the user ids of its recipients (the members its `to` resolved to). Only they and the workspace's owners and admins see it. null: sent to the channel. */
            to: string[] | null;
            scheduledFor: string;
            /** @constant */
            status: "scheduled";
        };
        ScheduledPage: {
            events: components["schemas"]["ScheduledEvent"][];
            /** @description Pass as `cursor` for the next page; null at the end. */
            nextCursor: string | null;
        };
        Session: {
            /** Format: uuid */
            userId: string;
            email: string;
            /** @description client "app": the bearer token (hrlu_…), shown once. */
            token?: string;
            /** @description client "web": send it as X-CSRF-Token with every change. */
            csrf?: string;
        };
        SettledRouterDeliveries: {
            /** @description Pending deliveries ended; 0 when none was pending. */
            settled: number;
        };
        SettleRouterDeliveriesBody: {
            /** @description `failed`: as if their retries had run out (a bulk replay sends them again); `cancelled`: dropped on purpose, never replayed in bulk. */
            state: "failed" | "cancelled";
        };
        SignedUp: {
            /** Format: uuid */
            userId: string;
            email: string;
            /** @description client "app": the bearer token (hrlu_…), shown once. */
            token?: string;
            /** @description client "web": send it as X-CSRF-Token with every change. */
            csrf?: string;
            workspace: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
        };
        SigninBody: {
            /**
             * @description E-mail address.
             * @example jane@example.com
             */
            email: string;
            /** @description At least 10 characters. */
            password: string;
            /**
             * @description web: a session cookie (and a CSRF token to send back in X-CSRF-Token); app: a bearer token in the body.
             * @default app
             */
            client: "web" | "app";
        };
        SignupBody: {
            /**
             * @description E-mail address.
             * @example jane@example.com
             */
            email: string;
            /** @description At least 10 characters. */
            password: string;
            /**
             * @description Lower-case slug: letters, digits, "-" and "_".
             * @example acme
             */
            workspace?: string;
            /** @description The token of an invitation link: join that workspace instead of creating one. */
            invitation?: string;
            /**
             * @description web: a session cookie (and a CSRF token to send back in X-CSRF-Token); app: a bearer token in the body.
             * @default app
             */
            client: "web" | "app";
        };
        SignupConfirmBody: {
            /** @description The token from the link. */
            token: string;
            /**
             * @description web: a session cookie (and a CSRF token to send back in X-CSRF-Token); app: a bearer token in the body.
             * @default app
             */
            client: "web" | "app";
        };
        SignupPending: {
            /** @constant */
            status: "confirmation-sent";
            email: string;
            detail: string;
        };
        SignupSettings: {
            /** @enum {string} */
            signup: "open" | "invite";
            /** @description Whether anyone has signed up on this Herald yet. While nobody has, nobody can sign in, so the dashboard opens on the sign-up page. */
            anyAccount: boolean;
            /** @description On a fresh install, the workspace made at first start (`demo`) that the first account to sign up will own; null once it has an owner. */
            waitingWorkspace: string | null;
        };
        SubmitResult: {
            /**
             * @description Name of the workspace the event was sent to.
             * @example acme
             */
            workspace: string;
            /**
             * @description Channel the event went to; the workspace's default channel when none was given.
             * @example general
             */
            channel: string;
            /**
             * Format: uuid
             * @description UUIDv7 of the event; sortable by time.
             */
            eventId: string;
            /**
             * @description Monthly quota left after this event.
             * @example 9999
             */
            remainingQuota: number;
            /**
             * Format: uuid
             * @description Present when the event has `ack`: the id of its receipt (GET /receipts/{receipt}).
             */
            receipt?: string;
            /**
             * Format: date-time
             * @description Present when the event is scheduled (`deliverAt` or `delay`): when it goes out. Cancel it with DELETE /events/{eventId} until then.
             */
            scheduledFor?: string;
            /**
             * @description Present only when Herald changed the event: each truncation, each dropped property (with the field it may have meant: `did you mean "message"?`), each recipient of `to` dropped for not being a member, and each text header a JSON body ignored.
             * @example [
             *       "title was truncated to 128 characters"
             *     ]
             */
            errors?: string[];
        };
        /** @description Your unread counts, whatever the feed's filters. Each count stops at 1000 (a count is a walk of an index above your watermark); events of deleted channels are not counted. */
        UnreadCounts: {
            /** @description Your unread events in the workspace's channels, counted up to 1000: 1000 means at least 1000. */
            unread: number;
            /** @description Unread events per channel (channels with none are left out), each counted up to 1000. */
            byChannel: {
                [key: string]: number;
            };
        };
        UpdateChannelBody: {
            /**
             * @description A new slug: its past events and mutes move with it; events must use the new one.
             * @example signups
             */
            slug?: string;
            /**
             * @description Make it the default channel.
             * @constant
             */
            default?: true;
        };
        UpdateRouterBody: {
            /**
             * @description Unique in the workspace; a label for people and the CLI.
             * @example signups
             */
            name?: string;
            /**
             * @description Glob on the event's `event` key: `*` matches any run of characters, dots included (`user.*` matches `user.signup` and `user.a.b`, not `user`). `*` alone also matches events without a key. At most 200 of A-Z a-z 0-9 _ . : - *.
             * @example user.*
             */
            pattern?: string;
            /** @description Replaces the whole destination (all its secrets included); the signing secret is kept. */
            destination?: {
                /** @constant */
                type: "webhook";
                /**
                 * Format: uri
                 * @description Receiver URL; POSTed a JSON body signed per Standard Webhooks.
                 */
                url: string;
                /** @description Extra request headers, such as an Authorization the receiver expects: names are tokens (letters, digits and !#$%&'*+-.^_`|~), values printable ASCII without line breaks. */
                headers?: {
                    [key: string]: unknown | string;
                };
            } | {
                /** @constant */
                type: "slack";
                /**
                 * Format: uri
                 * @description Slack incoming-webhook URL (https://hooks.slack.com/services/…).
                 */
                url: string;
            } | {
                /** @constant */
                type: "discord";
                /**
                 * Format: uri
                 * @description Discord webhook URL (https://discord.com/api/webhooks/…).
                 */
                url: string;
            } | {
                /** @constant */
                type: "teams";
                /**
                 * Format: uri
                 * @description Microsoft Teams Workflows (or incoming-webhook) URL; receives an Adaptive Card.
                 */
                url: string;
            } | {
                /** @constant */
                type: "telegram";
                /** @description Bot API token from @BotFather. */
                botToken: string;
                /** @description Chat id or @channelusername. */
                chatId: string | number;
            } | {
                /** @constant */
                type: "email";
                /** @description Recipients. */
                to: string[];
                /** @description Sender; default SMTP_FROM. */
                from?: string;
                /** @description SMTP server; default SMTP_URL. */
                smtp?: {
                    host: string;
                    port: number;
                    /** @description TLS from the first byte (port 465). Otherwise STARTTLS when offered. */
                    secure?: boolean;
                    user?: string;
                    pass?: string;
                };
            } | {
                /** @constant */
                type: "sms";
                /** @description Twilio account SID. */
                accountSid: string;
                /** @description Twilio auth token. */
                authToken: string;
                /** @description Sending number, E.164. */
                from: string;
                /** @description Recipient number, E.164. */
                to: string;
            };
            /** @description Replaces the template; null clears it. */
            template?: {
                /** @description Mustache template of the title (`{{data.plan}}`, `{{event}}`…). */
                title?: string;
                /** @description Mustache template of the body. For a webhook it replaces the whole JSON body. */
                body?: string;
            } | null;
            /** @description A disabled router matches nothing. */
            enabled?: boolean;
            /**
             * @description Forwards only events whose `priority` is at or above it (1 min, 2 low, 3 default, 4 high, 5 urgent; an event without one is 3). Default 1: every event.
             * @example 4
             */
            minPriority?: number;
            /** @description Also send this router a delivery when a receipt of an event it forwarded ends: webhooks get `{"type": "receipt.acknowledged"|"receipt.expired"|"receipt.cancelled", "timestamp", "data": <the receipt>}`, chat destinations one line. Default false. */
            receipts?: boolean;
            /** @description At most `limit` deliveries per `per` and rendered `key`; the rest end `throttled`: recorded, visible, never sent. Null: no throttle. */
            throttle?: {
                /**
                 * @description At most this many deliveries per window and key (1-10000).
                 * @example 5
                 */
                limit: number;
                /**
                 * @description The window: seconds or a duration, 1s to 1d. It starts with the first event of its key. Read back as seconds.
                 * @example 1h
                 * @example 3600
                 */
                per: number | string;
                /**
                 * @description A template over the event (`{{data.host}}`, `{{channel}}`…), up to 200 characters: each rendered value counts apart (cut to 200 characters). Omitted or "": one key for every event.
                 * @example {{data.host}}
                 */
                key?: string;
            } | null;
            /** @description Gathers the matching events per rendered `key` and sends them as one delivery when the window ends or `max` is reached (webhooks: `{"type": "events.digest", "timestamp", "data": {"key", "count", "events"}}`; templates see `{{count}}` and `{{#events}}…{{/events}}`). Null: every event goes on its own. */
            digest?: {
                /**
                 * @description How long events are gathered: seconds or a duration, 10s to 1d, from the first event of its key. Read back as seconds.
                 * @example 10m
                 * @example 600
                 */
                window: number | string;
                /**
                 * @description A template over the event (`{{data.host}}`, `{{channel}}`…), up to 200 characters: each rendered value counts apart (cut to 200 characters). Omitted or "": one key for every event.
                 * @example {{data.host}}
                 */
                key?: string;
                /** @description A digest goes at once when it holds this many events (1-1000, default 100). */
                max?: number;
                /** @description Events at or above this priority are not gathered: they go at once, on their own. Absent: every event is gathered. */
                bypassPriority?: number;
            } | null;
        };
        UpdateWorkspaceBody: {
            /**
             * @description New monthly quota; usage this month is kept.
             * @example 10000
             */
            monthlyQuota?: number;
            rateLimit?: {
                /**
                 * @description Token refill rate, events per second.
                 * @example 100
                 */
                perSecond?: number;
                /**
                 * @description Bucket size: the most events accepted at once.
                 * @example 200
                 */
                burst?: number;
            };
        };
        Usage: {
            period: string;
            used: number;
            limit: number;
            remaining: number;
            /** Format: date-time */
            resetsAt: string;
            /** @description The last 30 days, oldest first, today included. */
            days: {
                /** @description YYYY-MM-DD (UTC). */
                day: string;
                events: number;
            }[];
        };
        VapidPublicKey: {
            /** @description The VAPID public key (65-byte P-256 point, base64url): the applicationServerKey of pushManager.subscribe(). */
            publicKey: string;
        };
        WorkspaceDetail: {
            workspace: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            defaultChannel: string;
            monthlyQuota: number;
            rateLimit: {
                perSecond: number;
                burst: number;
            };
            usage: {
                /** @description The month counted, YYYY-MM (UTC). */
                period: string;
                used: number;
                remaining: number;
                /**
                 * Format: date-time
                 * @description When the quota starts again: 00:00 UTC on the first of next month.
                 */
                resetsAt: string;
            };
            /** Format: date-time */
            createdAt: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process answers. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Liveness"];
                };
            };
        };
    };
    getReadyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready: the database answered. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description Not ready: draining, or the database is unreachable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    postEvent: {
        parameters: {
            query?: never;
            header?: {
                /** @description A repeat within 24 h returns the original answer; the same key with another body gets 422. */
                "Idempotency-Key"?: string;
                /** @description With a text/plain body only: the event's `title`. Also spelled X-Title, which wins when both are sent. A JSON body ignores it (the answer's `errors` says so). */
                Title?: string;
                /** @description With a text/plain body only: the event's `priority`: 1 to 5, or min, low, default, high, urgent (or max). Also spelled X-Priority, which wins when both are sent. A JSON body ignores it (the answer's `errors` says so). */
                Priority?: string;
                /** @description With a text/plain body only: the event's `tags`, comma-separated. Also spelled X-Tags, which wins when both are sent. A JSON body ignores it (the answer's `errors` says so). */
                Tags?: string;
                /** @description With a text/plain body only: the event's `channel`. Also spelled X-Channel, which wins when both are sent. A JSON body ignores it (the answer's `errors` says so). */
                Channel?: string;
                /** @description With a text/plain body only: the event's `event`. Also spelled X-Event, which wins when both are sent. A JSON body ignores it (the answer's `errors` says so). */
                Event?: string;
                /** @description With a text/plain body only: the event's `link` (ntfy's Click header). Also spelled X-Click, which wins when both are sent. A JSON body ignores it (the answer's `errors` says so). */
                Click?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EventBody"];
                /** @example Backup done */
                "text/plain": string;
            };
        };
        responses: {
            /** @description Accepted and durable. Carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmitResult"];
                };
            };
            /** @description Validation failed, the body is not JSON (or, as text/plain, not UTF-8 or a JSON object), or its Content-Type is neither application/json nor text/plain. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over 262,144 bytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Idempotency-Key reused with another body, or a new channel past the workspace's limit of channels. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limit or monthly quota hit (see Retry-After); for an event with `ack`, the workspace has its most pending receipts (`receipt-limit`); for a scheduled event, its most scheduled events (`schedule-limit`). See the problem type. */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Database unavailable; nothing was stored. Retry after Retry-After. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getEvents: {
        parameters: {
            query?: {
                status?: "scheduled";
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduledPage"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postEvents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BatchBody"];
            };
        };
        responses: {
            /** @description One result per event, in request order. Carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset as they stand after the batch. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchResult"];
                };
            };
            /** @description Not a batch: not JSON, not an object, `events` missing, empty or over 1,000 events, or an Idempotency-Key header. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or invalid API key. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body over 4194304 bytes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No event fitted the rate limit or the monthly quota; see Retry-After and the problem type. */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Database unavailable. Events of the batch may have been stored: retry with an idempotencyKey in each event. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getEventsByEventId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProducerEvent"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No event of this id in the workspace of this key. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteEventsByEventId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelledEvent"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No scheduled event of this id in the workspace of this key. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The event already went out (`event-sent`, saying when). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getReceiptsByReceipt: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                receipt: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Receipt"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No receipt of this id in the workspace of this key. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postReceiptsByReceiptCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                receipt: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Receipt"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No receipt of this id in the workspace of this key. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The receipt is no longer pending: its detail says how it ended and, when acknowledged, by whom. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAdminWorkspaces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperatorWorkspace"][];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No operator API: this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postAdminWorkspaces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OperatorCreateWorkspaceBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedWorkspace"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No operator API: this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A workspace of this name exists. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAdminWorkspacesByWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperatorWorkspace"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patchAdminWorkspacesByWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateWorkspaceBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperatorWorkspace"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAdminWorkspacesByWorkspaceKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"][];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postAdminWorkspacesByWorkspaceKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["OperatorCreateApiKeyBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperatorCreatedApiKey"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace has HERALD_MAX_API_KEYS_PER_WORKSPACE live API keys (limit-reached): revoke one first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteAdminWorkspacesByWorkspaceKeysById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no live API key of this id in it; or no operator API. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAdminWorkspacesByWorkspaceRouters: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Router"][];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postAdminWorkspacesByWorkspaceRouters: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateRouterBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedRouter"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A router of this name exists in the workspace, or it has HERALD_MAX_ROUTERS_PER_WORKSPACE routers. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAdminWorkspacesByWorkspaceRoutersById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Router"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no router of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteAdminWorkspacesByWorkspaceRoutersById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no router of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patchAdminWorkspacesByWorkspaceRoutersById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateRouterBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Router"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no router of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A router of this name exists in the workspace. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postAdminWorkspacesByWorkspaceRoutersByIdDeliveriesSettle: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SettleRouterDeliveriesBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SettledRouterDeliveries"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no router of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAdminWorkspacesByWorkspaceDeliveries: {
        parameters: {
            query?: {
                state?: "failed" | "pending" | "succeeded" | "cancelled" | "expired" | "suppressed" | "throttled" | "digested" | "all";
                limit?: number;
            };
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliverySummary"][];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postAdminWorkspacesByWorkspaceDeliveriesByIdReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 202 */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReplayedDelivery"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no finished delivery of this id in it (a pending one is already scheduled). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAdminWorkspacesByWorkspaceMembers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Member"][];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postAdminWorkspacesByWorkspaceMembers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OperatorAddMemberBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AddedMember"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description This address is already a member of the workspace. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteAdminWorkspacesByWorkspaceMembersByUserId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or this user is not a member of it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description This is the last owner of the workspace: make someone else owner first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patchAdminWorkspacesByWorkspaceMembersByUserId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChangeRoleBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Member"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or this user is not a member of it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description This is the last owner of the workspace: make someone else owner first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAdminWorkspacesByWorkspaceChannels: {
        parameters: {
            query?: {
                q?: string;
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperatorChannelPage"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postAdminWorkspacesByWorkspaceChannels: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OperatorCreateChannelBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelSlug"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The channel exists, or the workspace has HERALD_MAX_CHANNELS_PER_WORKSPACE channels. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteAdminWorkspacesByWorkspaceChannelsByChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                channel: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no such channel in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description This is the default channel: make another one the default first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patchAdminWorkspacesByWorkspaceChannelsByChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                channel: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OperatorUpdateChannelBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelSlug"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no such channel in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The new slug is taken. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putAdminWorkspacesByWorkspaceChannelsByChannelMutesByUserId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                channel: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Muted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace or channel, or the user is not a member of the workspace. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteAdminWorkspacesByWorkspaceChannelsByChannelMutesByUserId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                channel: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Unmuted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace or channel, or the user is not a member of the workspace. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAdminWorkspacesByWorkspaceInvitations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invitation"][];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postAdminWorkspacesByWorkspaceInvitations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OperatorCreateInvitationBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperatorCreatedInvitation"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (or no such thing in it, as the path names); or no operator API, as this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many invitations from the operator, or e-mails to this address: retry after Retry-After seconds. */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteAdminWorkspacesByWorkspaceInvitationsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no pending invitation of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAdminStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PipelineStatus"];
                };
            };
            /** @description Missing or wrong HERALD_ADMIN_TOKEN. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No operator API: this server was started without HERALD_ADMIN_TOKEN. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1Devices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Device"][];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1Devices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeviceBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegisteredDevice"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description You have the most devices one person may have, or this token or subscription is registered to another account. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteV1DevicesById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description You have no device with this id. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "getV1PushVapid-public-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VapidPublicKey"];
                };
            };
            /** @description Web Push is not configured on this server. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1AuthSignup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignupSettings"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1AuthSignup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignupBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignedUp"];
                };
            };
            /** @description Response for status 202 */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignupPending"];
                };
            };
            /** @description The request is invalid (`errors` names each field), or so is its invitation: used, expired or unknown. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Sign-up is by invitation only here, or the invitation is for another address. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace name is taken, or (with an invitation) an account with this address exists: sign in, then accept it. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many e-mails to this address or from this client: retry after Retry-After seconds. */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1AuthSignupConfirm: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignupConfirmBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignedUp"];
                };
            };
            /** @description The request is invalid, or the link is: used, expired or unknown. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace name was taken since, or an account with this address exists. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1AuthSignin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SigninBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The e-mail address or the password is wrong (invalid-credentials). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many sign-in attempts for this account or from this client: retry after Retry-After seconds. */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "postV1AuthPassword-reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasswordResetBody"];
            };
        };
        responses: {
            /** @description Asked: if the address has an account, a link is on its way. The body is an empty object. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many e-mails to this address or from this client: retry after Retry-After seconds. */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    "postV1AuthPassword-resetConfirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasswordResetConfirmBody"];
            };
        };
        responses: {
            /** @description The password is set; every session of the account is signed out. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid (a password too short, say), or the link is: used, expired or unknown. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1AuthSignout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out; a web session's cookie is cleared. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1MeSessions: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MySessions"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteV1MeSessionsBySessionId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session has ended. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1MePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChangePasswordBody"];
            };
        };
        responses: {
            /** @description The password is changed; every other session has ended. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: the current password is wrong (at /currentPassword), or the new one is too short (at /newPassword). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests: retry after Retry-After seconds. */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1Me: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Me"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1Workspaces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MyWorkspace"][];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1Workspaces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWorkspaceBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MyWorkspace"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The name is taken, or you own HERALD_MAX_WORKSPACES_PER_USER workspaces. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkspaceDetail"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patchV1WorkspacesByWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RenameWorkspaceBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MyWorkspace"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The name is taken. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceUsage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Usage"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceChannels: {
        parameters: {
            query?: {
                q?: string;
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelPage"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceChannels: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateChannelBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelSlug"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The channel exists, or the workspace has HERALD_MAX_CHANNELS_PER_WORKSPACE channels. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteV1WorkspacesByWorkspaceChannelsByChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                channel: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no such channel in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description This is the default channel: make another one the default first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patchV1WorkspacesByWorkspaceChannelsByChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                channel: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateChannelBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChannelSlug"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no such channel in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The new slug is taken. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putV1WorkspacesByWorkspaceChannelsByChannelMute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                channel: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Muted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no such channel in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteV1WorkspacesByWorkspaceChannelsByChannelMute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                channel: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Unmuted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1InvitationsByToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvitationPreview"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description This invitation is invalid, used or expired. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceMembers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Member"][];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteV1WorkspacesByWorkspaceMembersByUserId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed; their live feeds of the workspace end. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or this person is not a member of it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A workspace needs an owner: make someone else owner first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patchV1WorkspacesByWorkspaceMembersByUserId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChangeRoleBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Member"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or this person is not a member of it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A workspace needs an owner: make someone else owner first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceInvitations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invitation"][];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceInvitations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateInvitationBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedInvitation"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many invitations from you, or e-mails to this address: retry after Retry-After seconds. */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteV1WorkspacesByWorkspaceInvitationsById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no pending invitation of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1InvitationsByTokenAccept: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptedInvitation"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The invitation is for another address, or a web session sent no X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description This invitation is invalid, used or expired. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"][];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateApiKeyBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedApiKey"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The workspace has HERALD_MAX_API_KEYS_PER_WORKSPACE live API keys (limit-reached): revoke one first. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteV1WorkspacesByWorkspaceKeysById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no live API key of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceRouters: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Router"][];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no such router in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceRouters: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateRouterBody"];
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedRouter"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no such router in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A router of this name exists in the workspace, or it has HERALD_MAX_ROUTERS_PER_WORKSPACE routers. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceRoutersById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Router"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no router of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteV1WorkspacesByWorkspaceRoutersById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no router of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patchV1WorkspacesByWorkspaceRoutersById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateRouterBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Router"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no router of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A router of this name exists in the workspace. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceRoutersByIdDeliveriesSettle: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SettleRouterDeliveriesBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SettledRouterDeliveries"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace, or no router of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceRoutersPreview: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RouterPreviewBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RouterPreview"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no such router in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceRoutersByIdTest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RouterTestResult"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no such router in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1Feed: {
        parameters: {
            query: {
                workspace: string;
                channel?: string;
                tag?: string;
                event?: string;
                q?: string;
                minPriority?: number;
                status?: "unread" | "read" | "archived";
                before?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FeedPage"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1FeedStream: {
        parameters: {
            query: {
                workspace: string;
                channel?: string;
                tag?: string;
                event?: string;
                q?: string;
                minPriority?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream: `event` messages, each an event as JSON, and an `ended` message last. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description You have 10 live streams open: close one, or retry after Retry-After seconds. */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceFeedRead: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        /** @description Either `eventIds`, or `before` with an optional `channel`. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["MarkEventsBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarkResult"];
                };
            };
            /** @description A body that is not exactly one of the two forms, more than 100 ids, an id that is not an event of this workspace (`errors[].pointer` names it), or a channel that does not exist. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceFeedArchive: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        /** @description Either `eventIds`, or `before` with an optional `channel`. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["MarkEventsBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarkResult"];
                };
            };
            /** @description A body that is not exactly one of the two forms, more than 100 ids, an id that is not an event of this workspace (`errors[].pointer` names it), or a channel that does not exist. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceEventsByEventId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventWithDeliveries"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no event of this id in it that I may see (an event sent `to` people is seen by its recipients and the workspace's owners and admins only). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceScheduled: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduledPage"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deleteV1WorkspacesByWorkspaceScheduledByEventId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                eventId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelledEvent"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The event already went out (`event-sent`). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceReceiptsByReceiptAck: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                receipt: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["AckReceiptBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Receipt"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no receipt of this id in it that I may see (of an event sent `to` others, for a member who is neither its recipient nor an owner or admin). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Already acknowledged (the detail names by whom), cancelled or expired. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceReceiptsByReceipt: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                receipt: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Receipt"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no receipt of this id in it that I may see (of an event sent `to` others, for a member who is neither its recipient nor an owner or admin). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceDeliveriesByIdReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Scheduled: the delivery is pending again. The body is an empty object. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No such workspace (of mine), or no finished delivery of this id in it. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceDeliveries: {
        parameters: {
            query?: {
                state?: "pending" | "succeeded" | "failed" | "cancelled" | "expired" | "suppressed" | "throttled" | "digested";
                router?: string;
                device?: string;
                since?: string;
                until?: string;
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryPage"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspaceDeliveriesCounts: {
        parameters: {
            query: {
                events: string;
            };
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description By event id; an event of another workspace, or one sent `to` people that I may not see, counts zeros. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryCountsByEvent"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    postV1WorkspacesByWorkspaceDeliveriesReplay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BulkReplayBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkReplayResult"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getV1WorkspacesByWorkspacePreferences: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Preferences"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    putV1WorkspacesByWorkspacePreferences: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workspace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PreferencesBody"];
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Preferences"];
                };
            };
            /** @description The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing or wrong credentials. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is larger than this route takes. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The body is not JSON: send it with Content-Type: application/json. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unavailable: retry after Retry-After seconds. */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
