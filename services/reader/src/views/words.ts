import type { HtmlWords } from "@imprint/document/html";

/**
 * The reader's own words (everything it shows that is not the site's content), in the languages a
 * space may be written in that the reader speaks; any other language reads them in English.
 */
export interface ReaderWords {
  skipToContent: string;
  /** The search form's label and button. */
  search: string;
  searchPlaceholder: string;
  /** The header's search field, named after the site. */
  searchSite: (siteTitle: string) => string;
  /** The search page's field. */
  searchTheDocumentation: string;
  resultsFor: (query: string) => string;
  noMatches: string;
  onThisPage: string;
  previous: string;
  next: string;
  previousAndNext: string;
  lastUpdated: string;
  /** "Was this page helpful?": the question, its three answers (GitBook's ratings), the comment's label, the thank-you note. */
  feedback: { question: string; good: string; ok: string; bad: string; comment: string; thanks: string };
  menu: string;
  /** Names of the navigation landmarks. */
  pages: string;
  links: string;
  sections: string;
  versions: string;
  breadcrumbs: string;
  switchTheme: string;
  /** The footer's link to the site's privacy policy. */
  privacyPolicy: string;
  /** A page's link to its file in the synced repository, named after the host (GitHub, GitLab, Gitea). */
  editOn: (host: string) => string;
  /** The code blocks' copy button (the reader's script, which reads them from the page): its label, after a copy, and when the clipboard refuses. */
  copy: { label: string; done: string; failed: string };
  /** The list of results the script shows under the search field as the visitor types. */
  searchResults: string;
  /** The bare pages answered past the rate limit (429) and while an upstream is down (503). */
  tooManyRequests: { title: string; message: string };
  unavailable: { title: string; message: string };
  /** The words a page body's HTML adds to its text (task boxes, file links, heading anchors). */
  body: HtmlWords;
  /** An OpenAPI operation's API reference, its "Test it" panel (and that panel's script) and its markdown. */
  openApi: OpenApiWords;
  /** The not-found page: its heading, its sentence, and the link back to the site's first page. */
  notFound: { title: string; message: string; home: string };
  /** The page of a visitor-auth site for a visitor without a valid token (and no fallback URL). */
  signIn: { title: string; message: string };
}

/** The words of an OpenAPI operation's reference (views/openapi.ts). */
export interface OpenApiWords {
  /** What separates a label from its value ("Server: …"), as the language writes it. */
  colon: string;
  /** After the operation's method and path, when its specification or the operation in it cannot be found. */
  missing: string;
  /** The link to a specification named by its URL. */
  specification: string;
  deprecated: string;
  server: string;
  parameters: string;
  /** The parameters' table: its columns (`parameter` heads the markdown's), a parameter required or not, where it goes. */
  name: string;
  parameter: string;
  location: string;
  type: string;
  required: string;
  optional: string;
  description: string;
  locations: { path: string; query: string; header: string; cookie: string };
  /** A schema's allowed values, after its type. */
  oneOf: (values: string) => string;
  example: string;
  requestBody: string;
  responses: string;
  response: string;
  codeSamples: string;
  contentType: string;
  schema: string;
  /** A required property of a schema, and a required field of the form. */
  requiredMark: string;
  /** The markdown's "required" column. */
  yes: string;
  no: string;
  testIt: string;
  /** The form's name, with the operation's method and path. */
  test: (operation: string) => string;
  body: string;
  send: string;
  /** Shown by the panel's script while the call is under way, and when it fails (`{error}`: the browser's message). */
  sending: string;
  requestFailed: string;
}

const english: ReaderWords = {
  skipToContent: "Skip to content",
  search: "Search",
  searchPlaceholder: "Search…",
  searchSite: (siteTitle) => `Search ${siteTitle}`,
  searchTheDocumentation: "Search the documentation",
  resultsFor: (query) => `Results for “${query}”`,
  noMatches: "No page matches.",
  onThisPage: "On this page",
  previous: "Previous",
  next: "Next",
  previousAndNext: "Previous and next",
  lastUpdated: "Last updated",
  feedback: {
    question: "Was this page helpful?",
    good: "Yes",
    ok: "Somewhat",
    bad: "No",
    comment: "Tell us more (optional)",
    thanks: "Thank you for your feedback.",
  },
  menu: "Menu",
  pages: "Pages",
  links: "Links",
  sections: "Sections",
  versions: "Versions",
  breadcrumbs: "Breadcrumbs",
  switchTheme: "Switch between light and dark",
  privacyPolicy: "Privacy policy",
  editOn: (host) => `Edit on ${host}`,
  copy: { label: "Copy", done: "Copied", failed: "Press Ctrl+C" },
  searchResults: "Search results",
  tooManyRequests: { title: "Too many requests", message: "This address sent too many requests. Please try again in a moment." },
  unavailable: { title: "Temporarily unavailable", message: "This page cannot be shown right now. Please try again in a moment." },
  body: {
    taskDone: "done",
    taskToDo: "to do",
    download: (name) => `Download ${name}`,
    downloadFile: "Download the file",
    linkTo: (heading) => `Link to ${heading}`,
    dateLocale: "en-US",
    tags: "Tags",
    drawing: "Drawing",
  },
  openApi: {
    colon: ": ",
    missing: "this API operation's specification or the operation in it could not be found.",
    specification: "The OpenAPI specification",
    deprecated: "Deprecated",
    server: "Server",
    parameters: "Parameters",
    name: "Name",
    parameter: "Parameter",
    location: "In",
    type: "Type",
    required: "Required",
    optional: "Optional",
    description: "Description",
    locations: { path: "path", query: "query", header: "header", cookie: "cookie" },
    oneOf: (values) => `one of ${values}`,
    example: "Example",
    requestBody: "Request body",
    responses: "Responses",
    response: "Response",
    codeSamples: "Code samples",
    contentType: "Content type",
    schema: "Schema",
    requiredMark: "required",
    yes: "yes",
    no: "no",
    testIt: "Test it",
    test: (operation) => `Test ${operation}`,
    body: "Body",
    send: "Send",
    sending: "Sending…",
    requestFailed: "The request failed: {error} (the API may not allow calls from this site)",
  },
  notFound: { title: "Page not found", message: "There is no page at this address.", home: "Go to the home page" },
  signIn: { title: "Sign in to read this site", message: "This documentation is for signed-in readers only." },
};

const WORDS: Readonly<Record<string, ReaderWords>> = {
  en: english,
  fr: {
    skipToContent: "Aller au contenu",
    search: "Rechercher",
    searchPlaceholder: "Rechercher…",
    searchSite: (siteTitle) => `Rechercher dans ${siteTitle}`,
    searchTheDocumentation: "Rechercher dans la documentation",
    resultsFor: (query) => `Résultats pour « ${query} »`,
    noMatches: "Aucune page ne correspond.",
    onThisPage: "Sur cette page",
    previous: "Précédent",
    next: "Suivant",
    previousAndNext: "Précédent et suivant",
    lastUpdated: "Dernière mise à jour le",
    feedback: {
      question: "Cette page vous a-t-elle été utile ?",
      good: "Oui",
      ok: "En partie",
      bad: "Non",
      comment: "Dites-nous en plus (facultatif)",
      thanks: "Merci pour votre avis.",
    },
    menu: "Menu",
    pages: "Pages",
    links: "Liens",
    sections: "Sections",
    versions: "Versions",
    breadcrumbs: "Fil d’Ariane",
    switchTheme: "Basculer entre clair et sombre",
    privacyPolicy: "Politique de confidentialité",
    editOn: (host) => `Modifier sur ${host}`,
    copy: { label: "Copier", done: "Copié", failed: "Appuyez sur Ctrl+C" },
    searchResults: "Résultats de recherche",
    tooManyRequests: { title: "Trop de requêtes", message: "Cette adresse a envoyé trop de requêtes. Veuillez réessayer dans un instant." },
    unavailable: { title: "Temporairement indisponible", message: "Cette page ne peut pas être affichée pour le moment. Veuillez réessayer dans un instant." },
    body: {
      taskDone: "fait",
      taskToDo: "à faire",
      download: (name) => `Télécharger ${name}`,
      downloadFile: "Télécharger le fichier",
      linkTo: (heading) => `Lien vers ${heading}`,
      dateLocale: "fr-FR",
      tags: "Étiquettes",
      drawing: "Dessin",
    },
    openApi: {
      colon: " : ",
      missing: "la spécification de cette opération d’API ou l’opération qu’elle décrit est introuvable.",
      specification: "La spécification OpenAPI",
      deprecated: "Obsolète",
      server: "Serveur",
      parameters: "Paramètres",
      name: "Nom",
      parameter: "Paramètre",
      location: "Emplacement",
      type: "Type",
      required: "Obligatoire",
      optional: "Facultatif",
      description: "Description",
      locations: { path: "chemin", query: "requête", header: "en-tête", cookie: "cookie" },
      oneOf: (values) => `parmi ${values}`,
      example: "Exemple",
      requestBody: "Corps de la requête",
      responses: "Réponses",
      response: "Réponse",
      codeSamples: "Exemples de code",
      contentType: "Type de contenu",
      schema: "Schéma",
      requiredMark: "obligatoire",
      yes: "oui",
      no: "non",
      testIt: "Tester",
      test: (operation) => `Tester ${operation}`,
      body: "Corps",
      send: "Envoyer",
      sending: "Envoi…",
      requestFailed: "La requête a échoué : {error} (l’API n’accepte peut-être pas les appels depuis ce site)",
    },
    notFound: { title: "Page introuvable", message: "Il n’y a aucune page à cette adresse.", home: "Aller à la page d’accueil" },
    signIn: { title: "Connectez-vous pour lire ce site", message: "Cette documentation est réservée aux lecteurs connectés." },
  },
  de: {
    skipToContent: "Zum Inhalt springen",
    search: "Suchen",
    searchPlaceholder: "Suchen…",
    searchSite: (siteTitle) => `${siteTitle} durchsuchen`,
    searchTheDocumentation: "Dokumentation durchsuchen",
    resultsFor: (query) => `Ergebnisse für „${query}“`,
    noMatches: "Keine Seite gefunden.",
    onThisPage: "Auf dieser Seite",
    previous: "Zurück",
    next: "Weiter",
    previousAndNext: "Zurück und weiter",
    lastUpdated: "Zuletzt aktualisiert am",
    feedback: {
      question: "War diese Seite hilfreich?",
      good: "Ja",
      ok: "Teilweise",
      bad: "Nein",
      comment: "Erzählen Sie uns mehr (optional)",
      thanks: "Vielen Dank für Ihr Feedback.",
    },
    menu: "Menü",
    pages: "Seiten",
    links: "Links",
    sections: "Bereiche",
    versions: "Versionen",
    breadcrumbs: "Brotkrümelnavigation",
    switchTheme: "Zwischen hell und dunkel wechseln",
    privacyPolicy: "Datenschutzerklärung",
    editOn: (host) => `Auf ${host} bearbeiten`,
    copy: { label: "Kopieren", done: "Kopiert", failed: "Strg+C drücken" },
    searchResults: "Suchergebnisse",
    tooManyRequests: { title: "Zu viele Anfragen", message: "Von dieser Adresse kamen zu viele Anfragen. Bitte versuchen Sie es gleich noch einmal." },
    unavailable: {
      title: "Vorübergehend nicht verfügbar",
      message: "Diese Seite kann gerade nicht angezeigt werden. Bitte versuchen Sie es gleich noch einmal.",
    },
    body: {
      taskDone: "erledigt",
      taskToDo: "offen",
      download: (name) => `${name} herunterladen`,
      downloadFile: "Datei herunterladen",
      linkTo: (heading) => `Link zu ${heading}`,
      dateLocale: "de-DE",
      tags: "Schlagwörter",
      drawing: "Zeichnung",
    },
    openApi: {
      colon: ": ",
      missing: "Die Spezifikation dieser API-Operation oder die Operation darin wurde nicht gefunden.",
      specification: "Die OpenAPI-Spezifikation",
      deprecated: "Veraltet",
      server: "Server",
      parameters: "Parameter",
      name: "Name",
      parameter: "Parameter",
      location: "Ort",
      type: "Typ",
      required: "Erforderlich",
      optional: "Optional",
      description: "Beschreibung",
      locations: { path: "Pfad", query: "Query", header: "Header", cookie: "Cookie" },
      oneOf: (values) => `eins von ${values}`,
      example: "Beispiel",
      requestBody: "Request-Body",
      responses: "Antworten",
      response: "Antwort",
      codeSamples: "Codebeispiele",
      contentType: "Inhaltstyp",
      schema: "Schema",
      requiredMark: "erforderlich",
      yes: "ja",
      no: "nein",
      testIt: "Testen",
      test: (operation) => `${operation} testen`,
      body: "Body",
      send: "Senden",
      sending: "Wird gesendet…",
      requestFailed: "Die Anfrage ist fehlgeschlagen: {error} (die API erlaubt möglicherweise keine Aufrufe von dieser Website)",
    },
    notFound: { title: "Seite nicht gefunden", message: "Unter dieser Adresse gibt es keine Seite.", home: "Zur Startseite" },
    signIn: { title: "Melden Sie sich an, um diese Seite zu lesen", message: "Diese Dokumentation ist nur für angemeldete Leser." },
  },
  es: {
    skipToContent: "Saltar al contenido",
    search: "Buscar",
    searchPlaceholder: "Buscar…",
    searchSite: (siteTitle) => `Buscar en ${siteTitle}`,
    searchTheDocumentation: "Buscar en la documentación",
    resultsFor: (query) => `Resultados para «${query}»`,
    noMatches: "Ninguna página coincide.",
    onThisPage: "En esta página",
    previous: "Anterior",
    next: "Siguiente",
    previousAndNext: "Anterior y siguiente",
    lastUpdated: "Última actualización:",
    feedback: {
      question: "¿Te ha resultado útil esta página?",
      good: "Sí",
      ok: "En parte",
      bad: "No",
      comment: "Cuéntanos más (opcional)",
      thanks: "Gracias por tu opinión.",
    },
    menu: "Menú",
    pages: "Páginas",
    links: "Enlaces",
    sections: "Secciones",
    versions: "Versiones",
    breadcrumbs: "Ruta de navegación",
    switchTheme: "Cambiar entre claro y oscuro",
    privacyPolicy: "Política de privacidad",
    editOn: (host) => `Editar en ${host}`,
    copy: { label: "Copiar", done: "Copiado", failed: "Pulsa Ctrl+C" },
    searchResults: "Resultados de búsqueda",
    tooManyRequests: { title: "Demasiadas solicitudes", message: "Esta dirección ha enviado demasiadas solicitudes. Vuelve a intentarlo en un momento." },
    unavailable: { title: "No disponible temporalmente", message: "Esta página no se puede mostrar ahora mismo. Vuelve a intentarlo en un momento." },
    body: {
      taskDone: "hecho",
      taskToDo: "pendiente",
      download: (name) => `Descargar ${name}`,
      downloadFile: "Descargar el archivo",
      linkTo: (heading) => `Enlace a ${heading}`,
      dateLocale: "es-ES",
      tags: "Etiquetas",
      drawing: "Dibujo",
    },
    openApi: {
      colon: ": ",
      missing: "no se ha encontrado la especificación de esta operación de la API ni la operación en ella.",
      specification: "La especificación OpenAPI",
      deprecated: "Obsoleto",
      server: "Servidor",
      parameters: "Parámetros",
      name: "Nombre",
      parameter: "Parámetro",
      location: "Ubicación",
      type: "Tipo",
      required: "Obligatorio",
      optional: "Opcional",
      description: "Descripción",
      locations: { path: "ruta", query: "consulta", header: "encabezado", cookie: "cookie" },
      oneOf: (values) => `uno de ${values}`,
      example: "Ejemplo",
      requestBody: "Cuerpo de la solicitud",
      responses: "Respuestas",
      response: "Respuesta",
      codeSamples: "Ejemplos de código",
      contentType: "Tipo de contenido",
      schema: "Esquema",
      requiredMark: "obligatorio",
      yes: "sí",
      no: "no",
      testIt: "Probar",
      test: (operation) => `Probar ${operation}`,
      body: "Cuerpo",
      send: "Enviar",
      sending: "Enviando…",
      requestFailed: "La solicitud ha fallado: {error} (es posible que la API no permita llamadas desde este sitio)",
    },
    notFound: { title: "Página no encontrada", message: "No hay ninguna página en esta dirección.", home: "Ir a la página de inicio" },
    signIn: { title: "Inicia sesión para leer este sitio", message: "Esta documentación es solo para lectores que han iniciado sesión." },
  },
  ja: {
    skipToContent: "コンテンツへスキップ",
    search: "検索",
    searchPlaceholder: "検索…",
    searchSite: (siteTitle) => `${siteTitle} を検索`,
    searchTheDocumentation: "ドキュメントを検索",
    resultsFor: (query) => `「${query}」の検索結果`,
    noMatches: "一致するページはありません。",
    onThisPage: "このページの内容",
    previous: "前へ",
    next: "次へ",
    previousAndNext: "前へ・次へ",
    lastUpdated: "最終更新:",
    feedback: {
      question: "このページは役に立ちましたか？",
      good: "はい",
      ok: "まあまあ",
      bad: "いいえ",
      comment: "詳しく教えてください（任意）",
      thanks: "フィードバックをありがとうございました。",
    },
    menu: "メニュー",
    pages: "ページ",
    links: "リンク",
    sections: "セクション",
    versions: "バージョン",
    breadcrumbs: "パンくずリスト",
    switchTheme: "ライトとダークを切り替え",
    privacyPolicy: "プライバシーポリシー",
    editOn: (host) => `${host} で編集`,
    copy: { label: "コピー", done: "コピーしました", failed: "Ctrl+C を押してください" },
    searchResults: "検索結果",
    tooManyRequests: { title: "リクエストが多すぎます", message: "このアドレスからのリクエストが多すぎます。しばらくしてからもう一度お試しください。" },
    unavailable: { title: "一時的に利用できません", message: "現在このページを表示できません。しばらくしてからもう一度お試しください。" },
    body: {
      taskDone: "完了",
      taskToDo: "未完了",
      download: (name) => `${name} をダウンロード`,
      downloadFile: "ファイルをダウンロード",
      linkTo: (heading) => `${heading} へのリンク`,
      dateLocale: "ja-JP",
      tags: "タグ",
      drawing: "図",
    },
    openApi: {
      colon: "：",
      missing: "この API オペレーションの仕様、またはその中のオペレーションが見つかりませんでした。",
      specification: "OpenAPI 仕様",
      deprecated: "非推奨",
      server: "サーバー",
      parameters: "パラメーター",
      name: "名前",
      parameter: "パラメーター",
      location: "場所",
      type: "型",
      required: "必須",
      optional: "任意",
      description: "説明",
      locations: { path: "パス", query: "クエリ", header: "ヘッダー", cookie: "Cookie" },
      oneOf: (values) => `${values} のいずれか`,
      example: "例",
      requestBody: "リクエストボディ",
      responses: "レスポンス",
      response: "レスポンス",
      codeSamples: "コードサンプル",
      contentType: "コンテンツタイプ",
      schema: "スキーマ",
      requiredMark: "必須",
      yes: "はい",
      no: "いいえ",
      testIt: "試してみる",
      test: (operation) => `${operation} を試す`,
      body: "ボディ",
      send: "送信",
      sending: "送信中…",
      requestFailed: "リクエストに失敗しました：{error}（この API はこのサイトからの呼び出しを許可していない可能性があります）",
    },
    notFound: { title: "ページが見つかりません", message: "このアドレスにはページがありません。", home: "ホームページへ移動" },
    signIn: { title: "このサイトを読むにはサインインしてください", message: "このドキュメントはサインインした読者専用です。" },
  },
  zh: {
    skipToContent: "跳到内容",
    search: "搜索",
    searchPlaceholder: "搜索…",
    searchSite: (siteTitle) => `搜索 ${siteTitle}`,
    searchTheDocumentation: "搜索文档",
    resultsFor: (query) => `“${query}”的搜索结果`,
    noMatches: "没有匹配的页面。",
    onThisPage: "本页内容",
    previous: "上一页",
    next: "下一页",
    previousAndNext: "上一页和下一页",
    lastUpdated: "最后更新：",
    feedback: { question: "此页面对您有帮助吗？", good: "是", ok: "一般", bad: "否", comment: "告诉我们更多（可选）", thanks: "感谢您的反馈。" },
    menu: "菜单",
    pages: "页面",
    links: "链接",
    sections: "栏目",
    versions: "版本",
    breadcrumbs: "面包屑导航",
    switchTheme: "切换浅色和深色",
    privacyPolicy: "隐私政策",
    editOn: (host) => `在 ${host} 上编辑`,
    copy: { label: "复制", done: "已复制", failed: "请按 Ctrl+C" },
    searchResults: "搜索结果",
    tooManyRequests: { title: "请求过多", message: "此地址发送的请求过多。请稍后再试。" },
    unavailable: { title: "暂时无法访问", message: "目前无法显示此页面。请稍后再试。" },
    body: {
      taskDone: "已完成",
      taskToDo: "待办",
      download: (name) => `下载 ${name}`,
      downloadFile: "下载文件",
      linkTo: (heading) => `链接到 ${heading}`,
      dateLocale: "zh-CN",
      tags: "标签",
      drawing: "绘图",
    },
    openApi: {
      colon: "：",
      missing: "找不到此 API 操作的规范或其中的操作。",
      specification: "OpenAPI 规范",
      deprecated: "已弃用",
      server: "服务器",
      parameters: "参数",
      name: "名称",
      parameter: "参数",
      location: "位置",
      type: "类型",
      required: "必填",
      optional: "可选",
      description: "说明",
      locations: { path: "路径", query: "查询", header: "请求头", cookie: "Cookie" },
      oneOf: (values) => `取值之一：${values}`,
      example: "示例",
      requestBody: "请求体",
      responses: "响应",
      response: "响应",
      codeSamples: "代码示例",
      contentType: "内容类型",
      schema: "架构",
      requiredMark: "必填",
      yes: "是",
      no: "否",
      testIt: "测试",
      test: (operation) => `测试 ${operation}`,
      body: "请求体",
      send: "发送",
      sending: "正在发送…",
      requestFailed: "请求失败：{error}（该 API 可能不允许从此站点调用）",
    },
    notFound: { title: "找不到页面", message: "此地址没有页面。", home: "前往首页" },
    signIn: { title: "登录以阅读此站点", message: "本文档仅供已登录的读者阅读。" },
  },
};

/** The reader's words in `language` (a space's language code); English for any other. */
export function readerWords(language: string): ReaderWords {
  return WORDS[language] ?? english;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** A long date in `language` (English for a language Intl does not know), in UTC as revisions are stamped. */
export function formatDate(language: string, date: Date): string {
  let format = dateFormats.get(language);
  if (!format) {
    const locale = Intl.DateTimeFormat.supportedLocalesOf([language])[0] ?? "en";
    format = new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" });
    dateFormats.set(language, format);
  }
  return format.format(date);
}

/** The longest Accept-Language header read (a longer one is cut: what matters comes first). */
const MAX_ACCEPT_LANGUAGE = 256;

/**
 * For a page that knows no space (the reader's status pages outside a site, past the rate limit,
 * while an upstream is down): the language the visitor's browser prefers (`Accept-Language`,
 * highest weight first, by primary subtag) among those the reader speaks; "en" when none.
 */
export function acceptedLanguage(header: string | undefined): string {
  let best = { language: "en", weight: 0 };
  for (const entry of (header ?? "").slice(0, MAX_ACCEPT_LANGUAGE).split(",")) {
    const [tag = "", ...parameters] = entry.trim().split(";");
    const language = tag.trim().toLowerCase().split("-")[0]!;
    const quality = parameters.map((parameter) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(parameter)?.[1]).find((value) => value !== undefined);
    const weight = quality === undefined ? 1 : Number(quality);
    if (Object.hasOwn(WORDS, language) && weight > best.weight) best = { language, weight };
  }
  return best.language;
}
