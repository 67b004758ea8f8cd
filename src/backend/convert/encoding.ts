/**
 * Text in any common encoding: a BOM decides first (UTF-8, UTF-16 LE/BE), then valid UTF-8 is
 * UTF-8, and anything else is detected with chardet (Windows code pages, Shift-JIS, EUC-JP,
 * GB18030, Big5, EUC-KR, KOI8-R, ISO-8859-x, UTF-16 without BOM) and decoded with iconv-lite.
 */
import chardet from 'chardet';
import iconv from 'iconv-lite';

export function decodeLegacyText(data: Uint8Array): { text: string; encoding: string } {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { text: bytes.toString('utf8', 3), encoding: 'UTF-8' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: iconv.decode(bytes.subarray(2), 'utf16le'), encoding: 'UTF-16LE' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: iconv.decode(bytes.subarray(2), 'utf16be'), encoding: 'UTF-16BE' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'UTF-8' };
  } catch {
    // not UTF-8: detect below
  }
  const encoding = detectEncoding(bytes.subarray(0, 64 * 1024));
  return { text: iconv.decode(bytes, encoding), encoding };
}

/** Multi-byte encodings a short sample may be in even when chardet ranks a code page first. */
const EAST_ASIAN = ['Shift_JIS', 'EUC-JP', 'GB18030', 'Big5', 'EUC-KR'];

/** Text in a multi-byte East Asian encoding is mostly high bytes; English with curly quotes is not. */
const MOSTLY_HIGH_BYTES = 0.3;

/**
 * Frequent Chinese characters (simplified, then the traditional forms of those that differ): a
 * sample read in the right encoding is mostly these; read in a wrong one (GB18030 bytes as Big5 or
 * EUC-KR, or the reverse) it gives characters picked almost at random from a large table.
 */
const COMMON_HANZI = new Set(
  '的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高间由问很最重并物手应战向头文体政美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次度门任常先海通教儿原东声提立及比员解水名真论处走义各入几口认条平系气题活尔更别打女变四神总何电数安少报才结反受目太量再感建务做接必场件计管期市直德资命山金指克许统区保至队形社便空决治展马科司五基眼书非则听白却界达光放强即像难且权思王象完设式色路记南品住告类求据程北边死张该交规万取拉格望觉术领共确传师观清今切院让识候带导争运笑飞风步改收根干造言联持组每济车亲极林服快办议往元英士证近失转夫令准布始怎呢存未远叫台单影具罗字爱击流备兵连调深商算质团集百需价花党华城石级整府离况亚请技际约示复病息究线似官火断精满支视消越器容照须九增研写称企八功吗包片史委乎查轻易早曾除农找装广显吧李标谈吃图念六引历首医局突专费号尽另周较注语仅考落青随选列武红响虽推势参希古众构房半节土投某案黑维革划敌致陈律足态护七兴派孩验责营星够章音跟志底站严巴例防族供效续施留讲型料终答紧黄绝奇察母京段依批群项故按河米围江织害斗双境客纪采举杀攻父苏密低朝友诉止细愿千值仍男钱破网热助倒育属坐帝限船脸职速刻乐否刚威毛状率甚独球般普怕弹校苦创假久错承印晚兰试股拿脑预谁益阳若哪微尼继送急血惊伤素药适波夜省初喜卫源食险待述陆习置居劳财环排福纳欢雷警获模充负云停木游龙树疑层冷洲冲射略范竟句室异激汉村哈策演简卡罪判担州静退既衣您宗积余痛检差富灵协角占配征修皮挥胜降阶审沉坚善妈刘读啊超免压银买皇养伊怀执副乱抗犯追帮宣佛岁航优怪香著田铁控税左右份穿艺背阵草脚概恶块顿敢守酒岛托央户烈洋哥索胡款靠评版宝座释景顾弟登货互付伯慢欧换闻危忙核暗姐介坏讨丽良序升监临亮露永呼味野架域沙掉括舰鱼杂误湾吉减编楚肯测败屋跑梦散温困剑渐封救贵枪缺楼县尚毫移娘朋画班智亦耳恩短掌恐遗固席松秘谢鲁遇康虑幸均销钟诗藏赶剧票损忽巨炮旧端探湖录叶春乡附吸予礼港雨呀板庭妇归睛饭额含顺输摇招婚脱补谓督毒油疗旅泽材灭逐莫笔亡鲜词圣择寻厂睡博勒烟授诺伦岸奥唐卖俄炸载洛健堂旁宫喝借君禁阴园谋宋避抓荣姑孙逃牙束跳顶玉镇雪午练迫爷篇肉嘴馆遍凡础洞卷坦牛宁纸诸训私庄祖丝翻暴森塔默握戏隐熟骨访弱蒙歌店鬼软典欲萨伙遭盘爸扩盖弄雄稳忘亿刺拥徒姆杨齐赛趣曲刀床迎冰虚玩析窗醒妻透购替塞努休虎扬途侵刑绿兄迅套贸毕唯谷轮库迹尤竞街促延震弃甲伟麻川申缓潜闪售灯针哲络抵朱埃抱鼓植纯夏忍页杰筑折郑贝尊吴秀混臣雅振染盛怒舞圆搞狂措姓残秋培迷诚宽宇猛摆梅毁伸摩盟末乃悲拍丁赵侧仁巧' +
    '這個們來為國說時會對過發後裡動麼經學現當沒樣還進實點軍無與長機開關問體從兩間應種戰頭見業題論處義將幾認條報書專員運變動傳師觀讓識帶導爭飛風聯組濟車親極辦議遠單愛擊備連調團質價華級離況亞請際約復總統區隊設記類據邊張該規萬領確歷醫號盡較語僅隨選紅響雖勢參眾構節護興孩驗責營夠嚴線話錢網熱職樂剛獨彈創錯預誰陽繼聽幾讀賣買貴歲場東車馬門魚鳥雲電臺灣陳',
);

/** Frequent Hangul syllables: Korean text is mostly these, Chinese or Japanese bytes read as Korean are not. */
const COMMON_HANGUL = new Set(
  '이다는의에하고가을를지기로서사자한도시리수대어나인정전과보일부아상주제해게구그여비원것스면소요성국들만무우라장동세내관적연회경개위방신문물학계마모용진중없있했었습니까던른러운간금데또알말든많생분실안영오외재조통파할함화후히강결공교근난년남녀니단당드람래력령례록료류르름립목민박반발배번법변별병복본불산색선설속손송술승식심씨야약양억언업역열예온완왕욕울월유육음응익임입잘저절점접족종좋죠준즉증직질집차참창책처천철청체초최추출충취치친카타태터토투트특판편평포표품프피필합항행향허현형호확환활효김권황홍곽엄채석길표명반옥맹탁봉녕목요일월화수금토감사드립니다네아니오우리저희여러분께서님씨들어봐서야요죠까지부터보다처럼만큼밖에마다조차도요은는이가을를의에게한테께로으로와과랑하고이며며고서면니까므로도록게지만는데다가자마자'.replace(
    /\s/g,
    '',
  ),
);

/**
 * How much `text` reads as real text, from 0 to 1; -1 when it holds a replacement character or a
 * C1 control, which no real text in the encoding it was decoded from has. Each non-ASCII
 * character counts: a frequent Hangul syllable or Chinese character, kana or CJK punctuation
 * fully, another Hangul syllable, CJK ideograph or half-width katakana a fifth (what a wrong
 * East Asian encoding gives), a letter of the text's main alphabet (Latin, Cyrillic, Greek…) fully, other letters
 * a fifth, symbols nothing.
 */
function textScore(text: string): number {
  const scripts = new Map<string, number>();
  let counted = 0;
  let score = 0;
  const alphabetic: string[] = [];
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code < 0x80) continue;
    if (code === 0xfffd || code < 0xa0) return -1;
    counted++;
    if (COMMON_HANGUL.has(char) || COMMON_HANZI.has(char)) score += 1;
    else if ((code >= 0x3040 && code <= 0x30ff) || (code >= 0x3000 && code <= 0x303f) || (code >= 0xff01 && code <= 0xff5e)) score += 1;
    else if ((code >= 0xac00 && code <= 0xd7a3) || (code >= 0x4e00 && code <= 0x9fff)) score += 0.2;
    // Half-width katakana: rare in text today, and what Korean or Chinese bytes give read as Shift-JIS.
    else if (code >= 0xff61 && code <= 0xff9f) score += 0.2;
    else if (/[\p{L}\p{M}]/u.test(char)) {
      const script = scriptOf(char);
      scripts.set(script, (scripts.get(script) ?? 0) + 1);
      alphabetic.push(script);
    }
  }
  if (counted === 0) return 1;
  // Letters of the main alphabet count fully; letters of others (Latin-1 mixed into Cyrillic) a fifth.
  const main = [...scripts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  for (const script of alphabetic) score += script === main ? 1 : 0.2;
  return score / counted;
}

const SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Hebrew', 'Arabic', 'Thai', 'Armenian', 'Georgian'] as const;
const SCRIPT_PATTERNS = SCRIPTS.map((name) => [name, new RegExp(`\\p{Script=${name}}`, 'u')] as const);

function scriptOf(char: string): string {
  return SCRIPT_PATTERNS.find(([, pattern]) => pattern.test(char))?.[0] ?? 'other';
}

/**
 * chardet's first guess, unless the sample is mostly high bytes (East Asian text is; so is Russian
 * or Greek): then every candidate (chardet's, the East Asian encodings, windows-1252) is decoded and
 * the one that reads best as text wins (textScore), chardet's order deciding ties. A few dozen
 * bytes are too few for chardet's statistics: EUC-KR read as windows-1251 or Big5, GB18030 as Big5.
 */
function detectEncoding(sample: Buffer): string {
  const ranked = chardet.analyse(sample).map((match) => normalize(match.name));
  const candidates = [...new Set([...ranked, ...EAST_ASIAN, 'windows-1252'])].filter((name) => iconv.encodingExists(name));
  const first = candidates[0] ?? 'windows-1252';
  if (highByteShare(sample) < MOSTLY_HIGH_BYTES) return first;
  let best = { name: first, score: textScore(iconv.decode(sample, first)) };
  for (const name of candidates.slice(1)) {
    const score = textScore(iconv.decode(sample, name));
    if (score > best.score) best = { name, score };
  }
  return best.name;
}

function highByteShare(sample: Buffer): number {
  let printable = 0;
  let high = 0;
  for (const byte of sample) {
    if (byte <= 0x20) continue;
    printable++;
    if (byte >= 0x80) high++;
  }
  return printable === 0 ? 0 : high / printable;
}

/** Browsers read ISO-8859-1 as its superset windows-1252 (curly quotes, euro sign). */
function normalize(name: string): string {
  return /^ISO-8859-1$/i.test(name) ? 'windows-1252' : name;
}
